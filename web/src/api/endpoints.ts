// Endpoint functions of spec section 7. Each is a thin typed call on the shared client.
import { http } from './client';
import type {
  AuthResponse,
  Connection,
  Contact,
  HistoryEntry,
  ID,
  Message,
  MessagePage,
  QuickAnswer,
  QuickAnswerPage,
  Queue,
  QueueInput,
  Setting,
  Tag,
  TagPage,
  Ticket,
  TicketPage,
  TicketStatus,
  User,
  UserInput,
  UserPage,
} from './types';

export const authApi = {
  login: async (email: string, password: string): Promise<AuthResponse> => {
    const auth = await http.post<AuthResponse>('/auth/login', { body: { email, password } });
    http.storeAuth(auth);
    return auth;
  },
  refresh: (): Promise<AuthResponse> => http.refresh(),
  logout: async (): Promise<void> => {
    try {
      await http.delete<void>('/auth/logout');
    } finally {
      http.clearAuth();
    }
  },
};

export interface TicketListParams {
  pageNumber: number;
  cursor?: string | null;
  status?: TicketStatus;
  searchParam?: string;
  showAll?: boolean;
  queueIds?: ID[];
  tags?: ID[];
  users?: ID[];
  withUnreadMessages?: boolean;
}

export const ticketsApi = {
  // List filters travel as JSON strings (spec section 7).
  list: (p: TicketListParams, signal?: AbortSignal): Promise<TicketPage> =>
    http.get<TicketPage>('/tickets', {
      signal,
      query: {
        pageNumber: p.cursor ? undefined : p.pageNumber,
        cursor: p.cursor || undefined,
        status: p.status,
        searchParam: p.searchParam || undefined,
        showAll: p.showAll === undefined ? undefined : String(p.showAll),
        queueIds: p.queueIds ? JSON.stringify(p.queueIds) : undefined,
        tags: p.tags && p.tags.length ? JSON.stringify(p.tags) : undefined,
        users: p.users && p.users.length ? JSON.stringify(p.users) : undefined,
        withUnreadMessages: p.withUnreadMessages ? 'true' : undefined,
      },
    }),
  get: (id: ID): Promise<Ticket> => http.get<Ticket>(`/tickets/${id}`),
  update: (
    id: ID,
    body: { status?: TicketStatus; userId?: ID | null; queueId?: ID | null; whatsappId?: ID | null },
  ): Promise<Ticket> => http.put<Ticket>(`/tickets/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/tickets/${id}`),
  create: (body: { contactId: ID; userId: ID; status: TicketStatus }): Promise<Ticket> =>
    http.post<Ticket>('/tickets', { body }),
  history: (id: ID): Promise<HistoryEntry[]> => http.post<HistoryEntry[]>(`/tickets/${id}`),
};

export interface SendMessageBody {
  body: string;
  fromMe: true;
  read: true;
  mediaUrl: string;
  quotedMsg?: { id: ID } | null;
  // Atende's extensions (docs: web/README.md): sign with the user's name, reply as audio,
  // translate before sending.
  sign?: boolean;
  textToAudio?: boolean;
  translateTo?: string;
}

export const messagesApi = {
  list: (ticketId: ID, pageNumber: number, signal?: AbortSignal, cursor?: string | null): Promise<MessagePage> =>
    http.get<MessagePage>(`/messages/${ticketId}`, {
      query: cursor ? { cursor } : { pageNumber },
      signal,
    }),
  send: (ticketId: ID, body: SendMessageBody): Promise<Message | undefined> =>
    http.post<Message | undefined>(`/messages/${ticketId}`, { body }),
  sendMedia: (ticketId: ID, file: Blob, fileName: string, body = ''): Promise<Message | undefined> => {
    const form = new FormData();
    form.append('fromMe', 'true');
    if (body) form.append('body', body); // the first file's caption
    form.append('medias', file, fileName);
    return http.post<Message | undefined>(`/messages/${ticketId}`, { form });
  },
  whisper: (ticketId: ID, body: string): Promise<Message | undefined> =>
    http.post<Message | undefined>(`/messages/whisper/${ticketId}`, { body: { body, fromMe: true } }),
  askAI: (ticketId: ID, body: string): Promise<Message | undefined> =>
    http.post<Message | undefined>(`/messages/askgpt/${ticketId}`, { body: { body } }),
  remove: (messageId: ID): Promise<void> => http.delete<void>(`/messages/${messageId}`),
  translate: (messageId: ID, language: string): Promise<Message> =>
    http.put<Message>(`/messages/${messageId}`, { body: { translateTo: language } }),
};

export interface ContactInput {
  name: string;
  number: string; // digits only
  email: string;
  extraInfo?: { id?: ID; name: string; value: string }[];
  salesOpps?: Contact['salesOpps'];
}

export const contactsApi = {
  get: (id: ID): Promise<Contact> => http.get<Contact>(`/contacts/${id}`),
  search: (searchParam: string, pageNumber = 1): Promise<{ contacts: Contact[]; hasMore?: boolean }> =>
    http.get(`/contacts`, { query: { searchParam, pageNumber } }),
  create: (body: ContactInput): Promise<Contact> => http.post<Contact>('/contacts', { body }),
  update: (id: ID, body: ContactInput): Promise<Contact> => http.put<Contact>(`/contacts/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/contacts/${id}`),
  markOpportunity: (oppId: ID, closingStatus: 0 | 1): Promise<void> =>
    http.put<void>(`/opportunity/${oppId}`, { body: { closingStatus, oppId } }),
};

export const usersApi = {
  list: (): Promise<User[]> => http.get<User[]>('/users/list'),
  // GET /users/ → {users, count, hasMore}, 40 a page, by name.
  search: (searchParam: string, pageNumber = 1): Promise<UserPage> =>
    http.get<UserPage>('/users/', { query: { searchParam: searchParam || undefined, pageNumber } }),
  get: (id: ID): Promise<User> => http.get<User>(`/users/${id}`),
  create: (body: UserInput): Promise<User> => http.post<User>('/users', { body }),
  update: (id: ID, body: Partial<UserInput>): Promise<User> => http.put<User>(`/users/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/users/${id}`),
};

export const queuesApi = {
  list: (): Promise<Queue[]> => http.get<Queue[]>('/queue'),
  create: (body: QueueInput): Promise<Queue> => http.post<Queue>('/queue', { body }),
  update: (id: ID, body: QueueInput): Promise<Queue> => http.put<Queue>(`/queue/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/queue/${id}`),
};

export const tagsApi = {
  list: (): Promise<Tag[]> => http.get<Tag[]>('/tags/list'),
  // GET /tags?searchParam= → {tags, count, hasMore}: one page holds every match.
  search: (searchParam: string): Promise<TagPage> =>
    http.get<TagPage>('/tags', { query: { searchParam: searchParam || undefined } }),
  // POST /tags answers the existing tag of that name (case and accents ignored) when
  // there is one.
  create: (body: { name: string; color?: string }): Promise<Tag> => http.post<Tag>('/tags', { body }),
  update: (id: ID, body: { name: string; color?: string }): Promise<Tag> => http.put<Tag>(`/tags/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/tags/${id}`),
};

export const quickAnswersApi = {
  // GET /quickAnswers/ → {quickAnswers, count, hasMore}, 20 a page, by shortcut.
  // pageNumber left out means 1 (the composer's lookup sends only the term).
  search: (searchParam: string, pageNumber?: number): Promise<QuickAnswerPage> =>
    http.get<QuickAnswerPage>('/quickAnswers/', { query: { searchParam, pageNumber } }),
  create: (body: { shortcut: string; message: string }): Promise<QuickAnswer> =>
    http.post<QuickAnswer>('/quickAnswers', { body }),
  update: (id: ID, body: { shortcut: string; message: string }): Promise<QuickAnswer> =>
    http.put<QuickAnswer>(`/quickAnswers/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/quickAnswers/${id}`),
};

export const settingsApi = {
  list: (): Promise<Setting[]> => http.get<Setting[]>('/settings'),
  // PUT /settings/{key} {value}: 'enabled' | 'disabled'.
  update: (key: string, value: string): Promise<Setting> =>
    http.put<Setting>(`/settings/${encodeURIComponent(key)}`, { body: { value } }),
};

export const connectionsApi = {
  list: (): Promise<Connection[]> => http.get<Connection[]>('/whatsapp/'),
};
