package engine

import (
	"errors"
	"fmt"
)

// AuthorizeTicket decides whether staff member p may send cmd to ticket t. It is the
// server's rule layer in front of DecideTicket (which judges the ticket's state, not
// the person); a nil answer means "go on and decide". The rules, in order:
//
//  1. An invalid principal (no user, no tenant, unknown profile) may do nothing:
//     ErrNoPermission.
//
//  2. Another tenant's ticket, a ticket never opened, and a deleted ticket all answer
//     ErrNoTicketFound, so a caller cannot tell them apart. For OpenTicket the tenant
//     is the command's CompanyID (and an existing ticket's, which must match too).
//
//  3. Channel-side commands (ReceiveMessage, SendAutomaticMessage, AckMessage,
//     RevokeMessage, FailMessage) come
//     from connections, never from a person: ErrNoPermission.
//
//  4. A person acts as themself: Accept and Reopen assign to p, SendMessage and
//     AddWhisper are written by p, DeleteMessage is done by p. Else ErrNoPermission.
//
//  5. Delete needs ticket-options:deleteTicket; a Transfer that changes the
//     connection needs ticket-options:transferWhatsapp.
//
//  6. Profiles without tickets-manager:showall (user, userplus) reach only tickets in
//     one of their queues, tickets assigned to them, and tickets with no queue (those
//     wait for anybody: nobody would see them otherwise) — SeesTicket's rule, closed
//     tickets aside. On an open ticket held by
//     someone else they may not resolve, return, transfer, reply or whisper — that is
//     the holder's conversation. They may open a ticket only in one of their queues
//     (or none) and only for themselves. Reading is not a command: the closed tab and
//     search show every ticket of the tenant (spec section 6), which is the read
//     model's business.
//
//  7. Invitations (ticket_invite.go): Invite is sent as oneself and follows rule 6
//     (on an open ticket held by someone else only a guest may invite); a guest —
//     a user who accepted an invitation — reaches the ticket whatever their queues
//     and may reply, whisper and invite on it, not resolve, return or transfer it.
//     AcceptInvite and DeclineInvite are answered by the invitee themself, outside
//     rule 6 (the invitee is usually not of the ticket's queue).
//
// Profiles with tickets-manager:showall (superv and upward) reach every ticket of their
// tenant.
func AuthorizeTicket(p Principal, t TicketState, cmd TicketCommand) error {
	if cmd == nil {
		return Wrap(ErrInternal, errors.New("authorize ticket: nil command"))
	}
	if !knownCommand(cmd) {
		return Wrap(ErrInternal, fmt.Errorf("authorize ticket: unsupported command %T", cmd))
	}
	name := cmd.CommandName()
	if !p.Valid() {
		return Wrap(ErrNoPermission, fmt.Errorf("%s: invalid principal (user %d, company %d, profile %q)", name, p.UserID, p.CompanyID, p.Profile))
	}
	open, isOpen := cmd.(OpenTicket)
	tenant := t.CompanyID
	if isOpen {
		tenant = open.CompanyID
	}
	if tenant != p.CompanyID || (t.CompanyID != 0 && t.CompanyID != p.CompanyID) ||
		(!isOpen && !t.Exists()) || (isOpen && t.Deleted) {
		return Wrap(ErrNoTicketFound, fmt.Errorf("%s: ticket %d not in company %d", name, t.ID, p.CompanyID))
	}
	deny := func(why string, args ...any) error {
		return Wrap(ErrNoPermission, fmt.Errorf("%s by user %d on ticket %d: %s", name, p.UserID, t.ID, fmt.Sprintf(why, args...)))
	}

	if isOpen && (open.First != nil || open.Greet != nil) {
		return deny("an opening with a customer's message is channel-side")
	}
	switch c := cmd.(type) {
	case ReceiveMessage, SendAutomaticMessage, AckMessage, RevokeMessage, FailMessage, AskRating, BotStep:
		return deny("channel-side command")
	case Accept:
		if c.UserID != p.UserID {
			return deny("accept for user %d", c.UserID)
		}
	case Reopen:
		if c.UserID != p.UserID {
			return deny("reopen for user %d", c.UserID)
		}
	case SendMessage:
		if c.SenderID != p.UserID {
			return deny("send as user %d", c.SenderID)
		}
	case AddWhisper:
		if c.SenderID != p.UserID {
			return deny("whisper as user %d", c.SenderID)
		}
	case DeleteMessage:
		if c.ByUserID != p.UserID {
			return deny("delete message as user %d", c.ByUserID)
		}
	case TranslateMessage:
		if c.ByUserID != p.UserID {
			return deny("translate as user %d", c.ByUserID)
		}
	case Delete:
		if !p.Can(ActDeleteTicket) {
			return deny("needs %s", ActDeleteTicket)
		}
	case Transfer:
		if c.ConnectionID != 0 && c.ConnectionID != t.ConnectionID && !p.Can(ActTransferWhatsapp) {
			return deny("needs %s", ActTransferWhatsapp)
		}
	case Invite:
		if c.ByUserID != p.UserID {
			return deny("invite as user %d", c.ByUserID)
		}
	case AcceptInvite, DeclineInvite:
		// The invitee answers for themself, wherever their queues are: DecideTicket
		// refuses an answer without a pending invitation.
		user := c.(interface{ invitee() ID }).invitee()
		if user != p.UserID {
			return deny("answer the invitation of user %d", user)
		}
		return nil
	}

	if p.Can(ActShowAllTickets) {
		return nil
	}
	if isOpen {
		if open.QueueID != 0 && !p.InQueue(open.QueueID) {
			return deny("queue %d is not the user's", open.QueueID)
		}
		if open.UserID != 0 && open.UserID != p.UserID {
			return deny("open for user %d", open.UserID)
		}
		return nil
	}
	guest := t.IsGuest(p.UserID)
	if !reaches(p, t.QueueID, t.UserID) && !guest { // SeesTicket's rule for a profile without showall, and a guest
		return deny("queue %d is not the user's", t.QueueID)
	}
	if t.Status == StatusOpen && t.UserID != p.UserID {
		switch cmd.(type) {
		case Resolve, Return, Transfer:
			return deny("ticket is held by user %d", t.UserID)
		case SendMessage, AddWhisper, Invite:
			if !guest {
				return deny("ticket is held by user %d", t.UserID)
			}
		}
	}
	return nil
}
