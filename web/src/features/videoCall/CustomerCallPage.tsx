// The customer's call page (/call/:token): public, authorised by the link's call
// token alone. It rings until the customer answers. Opened from the web chat widget
// (#via=webchat&c=<connection>&v=<visitor token>, which no request carries), it
// signals over the web chat's socket as that visitor; otherwise over the gateway
// (docs/calls.md).
import { useParams } from 'react-router';
import { webchatCallLink, webchatCallSocket } from '../../api/webchatCallSocket';
import { Splash } from '../../components/Splash';
import { CallScreen } from './CallScreen';
import { useCallSession } from './useCallSession';

export default function CustomerCallPage() {
  const { token = '' } = useParams();
  const session = useCallSession(() => {
    const link = webchatCallLink(window.location.hash);
    return { role: 'customer', socketToken: token, openSocket: link ? webchatCallSocket(link) : undefined };
  });
  return session ? <CallScreen session={session} /> : <Splash />;
}
