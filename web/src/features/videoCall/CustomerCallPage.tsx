// The customer's call page (/call/:token): public, authorised by the link's call
// token alone. It rings until the customer answers.
import { useParams } from 'react-router';
import { Splash } from '../../components/Splash';
import { CallScreen } from './CallScreen';
import { useCallSession } from './useCallSession';

export default function CustomerCallPage() {
  const { token = '' } = useParams();
  const session = useCallSession(() => ({ role: 'customer', socketToken: token }));
  return session ? <CallScreen session={session} /> : <Splash />;
}
