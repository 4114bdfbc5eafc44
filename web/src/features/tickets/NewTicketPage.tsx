// /newticket (spec section 2): the new-ticket modal as a page of its own, for a link or
// the drawer's "new ticket" entry. Choosing a contact opens its ticket (the modal goes
// to /tickets/{id}); closing without one goes back to the ticket list.
import { useNavigate } from 'react-router';
import { NewTicketModal } from './NewTicketModal';

export default function NewTicketPage() {
  const navigate = useNavigate();
  return <NewTicketModal open onClose={() => navigate('/tickets', { replace: true })} />;
}
