import { fromPromise } from 'xstate';
import { chatMachine } from '../../machines/chat.machine';
import { messagesApi, ticketsApi } from '../../api/endpoints';

export const liveChatMachine = chatMachine.provide({
  actors: {
    // The newest page carries the ticket (and marks it read on the server); older
    // servers without it get a GET /tickets/{id}.
    loadInitial: fromPromise(async ({ input, signal }) => {
      const page = await messagesApi.list(input.ticketId, 1, signal);
      const ticket = page.ticket ?? (await ticketsApi.get(input.ticketId));
      return { ticket, page };
    }),
    loadPage: fromPromise(({ input, signal }) => messagesApi.list(input.ticketId, input.pageNumber, signal, input.cursor)),
  },
});
