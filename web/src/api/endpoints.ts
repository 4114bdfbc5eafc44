// Endpoint functions of spec section 7. Each is a thin typed call on the shared client.
import { http } from './client';
import type {
  Announcement,
  AnnouncementInput,
  AnnouncementPage,
  AuthResponse,
  ClosingStatus,
  ClusterView,
  Connection,
  ConnectionInput,
  Contact,
  HistoryEntry,
  ID,
  InternalChat,
  InternalChatMessage,
  InternalChatMessagePage,
  InternalChatPage,
  Message,
  MessagePage,
  QuickAnswer,
  QuickAnswerPage,
  Schedule,
  ScheduleInput,
  SchedulePage,
  Queue,
  QueueInput,
  Setting,
  Tag,
  TagPage,
  Tenant,
  ApiToken,
  CreatedApiToken,
  TenantInput,
  Ticket,
  TicketPage,
  TicketStatus,
  User,
  UserInput,
  UserPage,
  WabaTemplate,
  WabaTemplateSend,
  WabaEmbeddedConfig,
  WabaEmbeddedSignup,
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
  create: (body: { contactId: ID; userId: ID; status: TicketStatus; whatsappId?: ID }): Promise<Ticket> =>
    http.post<Ticket>('/tickets', { body }),
  history: (id: ID): Promise<HistoryEntry[]> => http.post<HistoryEntry[]>(`/tickets/${id}`),
  // The ticket's PDF report: the server renders and stores it and answers a signed
  // link to it (docs/api.md 2.10a) and the file name to save it under.
  exportReport: (id: ID): Promise<{ url: string; name: string }> =>
    http.get<{ url: string; name: string }>('/tickets-export-report', { query: { ticketId: String(id) } }),
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

// A video call (docs/calls.md): the server sends the customer's link through the
// ticket and answers what the attendant's call window needs.
export interface VideoCallStart {
  callId: string;
  token: string;
  url: string;
  expiresAt: string;
}

export const videoCallsApi = {
  start: (ticketId: ID, text: string): Promise<VideoCallStart> =>
    http.post<VideoCallStart>(`/tickets/${ticketId}/video-call`, { body: { text } }),
};

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
  // Multipart POST /messages/{ticketId} with several files (at most 10): one message per
  // file, in order; body is the caption of the first. Answers one message or a list.
  sendFiles: (ticketId: ID, files: File[], body = '', quotedMsgId?: ID | null): Promise<Message | Message[] | undefined> => {
    const form = new FormData();
    form.append('fromMe', 'true');
    if (body) form.append('body', body);
    if (quotedMsgId) form.append('quotedMsgId', String(quotedMsgId));
    for (const f of files) form.append('medias', f, f.name);
    return http.post<Message | Message[] | undefined>(`/messages/${ticketId}`, { form });
  },
  whisper: (ticketId: ID, body: string): Promise<Message | undefined> =>
    http.post<Message | undefined>(`/messages/whisper/${ticketId}`, { body: { body, fromMe: true } }),
  askAI: (ticketId: ID, body: string): Promise<Message | undefined> =>
    http.post<Message | undefined>(`/messages/askgpt/${ticketId}`, { body: { body } }),
  // The ticket id spares the server the lookup of the message's ticket (it finds it
  // without, as whaticket's client needs).
  remove: (messageId: ID, ticketId: ID): Promise<void> =>
    http.delete<void>(`/messages/${messageId}`, { query: { ticketId } }),
  translate: (messageId: ID, language: string): Promise<Message> =>
    http.put<Message>(`/messages/${messageId}`, { body: { translateTo: language } }),
};

export interface ContactInput {
  name: string;
  number: string; // digits only
  email: string;
  extraInfo?: { id?: ID; name: string; value: string }[];
  // The whole list replaces the stored one: an item with a stored id keeps it, items
  // without one are added, items left out are removed (a set closingStatus is final).
  salesOpps?: { id?: ID; name: string; value: string; stage: string; closingStatus?: ClosingStatus }[];
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

export const scheduledMessagesApi = {
  // GET /scheduledMessages/ → {schedules, count, hasMore}, 20 a page, by sendAt.
  search: (searchParam: string, pageNumber?: number): Promise<SchedulePage> =>
    http.get<SchedulePage>('/scheduledMessages/', { query: { searchParam, pageNumber } }),
  create: (body: ScheduleInput): Promise<Schedule> => http.post<Schedule>('/scheduledMessages', { body }),
  update: (id: ID, body: ScheduleInput): Promise<Schedule> => http.put<Schedule>(`/scheduledMessages/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/scheduledMessages/${id}`),
};

export const announcementsApi = {
  // GET /announcements/ → {records, count, hasMore}, 20 a page, newest first;
  // activeOnly asks for status=active (the top bar reads the first record).
  search: (searchParam: string, pageNumber?: number, activeOnly = false): Promise<AnnouncementPage> =>
    http.get<AnnouncementPage>('/announcements/', {
      query: { searchParam: searchParam || undefined, pageNumber, status: activeOnly ? 'active' : undefined },
    }),
  // With a file (or removeMedia) the form goes as multipart: the attachment is sniffed
  // and size-limited by the server (415 / 413 when refused).
  create: (body: AnnouncementInput, media?: AnnouncementMediaChange): Promise<Announcement> =>
    media?.file
      ? http.post<Announcement>('/announcements', { form: announcementForm(body, media) })
      : http.post<Announcement>('/announcements', { body }),
  update: (id: ID, body: AnnouncementInput, media?: AnnouncementMediaChange): Promise<Announcement> =>
    media?.file || media?.remove
      ? http.put<Announcement>(`/announcements/${id}`, { form: announcementForm(body, media) })
      : http.put<Announcement>(`/announcements/${id}`, { body }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/announcements/${id}`),
};

// The internal chat (GET /chats/ → {records, count, hasMore}, 20 a page, latest first).
export const chatsApi = {
  list: (searchParam: string, pageNumber = 1): Promise<InternalChatPage> =>
    http.get<InternalChatPage>('/chats/', { query: { searchParam: searchParam || undefined, pageNumber } }),
  get: (id: ID): Promise<InternalChat> => http.get<InternalChat>(`/chats/${id}`),
  create: (users: ID[], title: string): Promise<InternalChat> =>
    http.post<InternalChat>('/chats', { body: { users, title } }),
  update: (id: ID, users: ID[], title: string): Promise<InternalChat> =>
    http.put<InternalChat>(`/chats/${id}`, { body: { users, title } }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/chats/${id}`),
  // Page 1 is the newest; messages run oldest to newest within a page.
  messages: (id: ID, pageNumber = 1): Promise<InternalChatMessagePage> =>
    http.get<InternalChatMessagePage>(`/chats/${id}/messages`, { query: { pageNumber } }),
  send: (id: ID, message: string): Promise<InternalChatMessage> =>
    http.post<InternalChatMessage>(`/chats/${id}/messages`, { body: { message } }),
  // Multipart: one message per file, the caption on the first; one message or a list.
  sendFiles: (id: ID, files: File[], caption = ''): Promise<InternalChatMessage | InternalChatMessage[]> => {
    const form = new FormData();
    if (caption) form.append('body', caption);
    for (const f of files) form.append('medias', f, f.name);
    return http.post<InternalChatMessage | InternalChatMessage[]>(`/chats/${id}/messages`, { form });
  },
  read: (id: ID): Promise<InternalChat> => http.post<InternalChat>(`/chats/${id}/read`, { body: {} }),
};

// AnnouncementMediaChange: a file to attach, or remove to drop the current one.
export interface AnnouncementMediaChange {
  file?: File | null;
  remove?: boolean;
}

function announcementForm(body: AnnouncementInput, media: AnnouncementMediaChange): FormData {
  const form = new FormData();
  form.append('title', body.title);
  form.append('text', body.text);
  form.append('priority', String(body.priority));
  form.append('status', String(body.status));
  if (media.file) form.append('medias', media.file, media.file.name);
  else if (media.remove) form.append('removeMedia', 'true');
  return form;
}

// Ticket invitations (docs/api.md, "Ticket invitations").
export const ticketInviteApi = {
  // PUT /ticketinvite/{id} {userId, userFrom}: userFrom is the caller.
  invite: (ticketId: ID, userId: ID, userFrom: ID): Promise<Ticket> =>
    http.put<Ticket>(`/ticketinvite/${ticketId}`, { body: { userId, userFrom } }),
  accept: (ticketId: ID): Promise<Ticket> => http.post<Ticket>(`/ticketinvite/${ticketId}/accept`),
  decline: (ticketId: ID): Promise<void> => http.post<void>(`/ticketinvite/${ticketId}/decline`),
};

export const settingsApi = {
  list: (): Promise<Setting[]> => http.get<Setting[]>('/settings'),
  // PUT /settings/{key} {value}: 'enabled' | 'disabled'.
  update: (key: string, value: string): Promise<Setting> =>
    http.put<Setting>(`/settings/${encodeURIComponent(key)}`, { body: { value } }),
};

// The connection form as multipart (docs/api.md "Connections"): queueIds as a JSON
// list; images as greetingMedia / farewellMedia files.
function connectionForm(body: ConnectionInput): FormData {
  const form = new FormData();
  form.append('name', body.name);
  form.append('number', body.number);
  form.append('isDefault', String(body.isDefault));
  form.append('outChannel', String(body.outChannel));
  form.append('dailyMax', String(body.dailyMax));
  form.append('greetingMessage', body.greetingMessage);
  form.append('farewellMessage', body.farewellMessage);
  form.append('queueIds', JSON.stringify(body.queueIds));
  if (body.removeGreetingMedia) form.append('removeGreetingMedia', 'true');
  if (body.removeFarewellMedia) form.append('removeFarewellMedia', 'true');
  if (body.greetingMedia) form.append('greetingMedia', body.greetingMedia, body.greetingMedia.name);
  if (body.farewellMedia) form.append('farewellMedia', body.farewellMedia, body.farewellMedia.name);
  return form;
}

export const connectionsApi = {
  list: (): Promise<Connection[]> => http.get<Connection[]>('/whatsapp/'),
  get: (id: ID): Promise<Connection> => http.get<Connection>(`/whatsapp/${id}`),
  create: (body: ConnectionInput): Promise<Connection> => http.post<Connection>('/whatsapp', { form: connectionForm(body) }),
  update: (id: ID, body: ConnectionInput): Promise<Connection> =>
    http.put<Connection>(`/whatsapp/${id}`, { form: connectionForm(body) }),
  remove: (id: ID): Promise<void> => http.delete<void>(`/whatsapp/${id}`),
  // Session: a new session (new QR code), disconnect, wipe the credentials.
  renew: (id: ID): Promise<Connection> => http.post<Connection>(`/whatsappsession/${id}`),
  disconnect: (id: ID): Promise<Connection> => http.delete<Connection>(`/whatsappsession/${id}`),
  wipe: (id: ID): Promise<Connection> => http.delete<Connection>(`/whatsappcreds/${id}`),
  // Cloud channels (their own server routes).
  addWaba: (body: {
    currWabaId: string;
    currWabaPhoneId: string;
    currPhoneNumber: string;
    currVerifiedName: string;
    currWabaToken: string;
  }): Promise<unknown> => http.post<unknown>('/wacloudapi', { body }),
  // Meta's embedded signup: what the browser needs to start it, then its result.
  wabaEmbeddedConfig: (): Promise<WabaEmbeddedConfig> => http.get<WabaEmbeddedConfig>('/wacloudapi/embedded/config'),
  addWabaEmbedded: (body: WabaEmbeddedSignup): Promise<Connection> => http.post<Connection>('/wacloudapi/embedded', { body }),
  addFacebook: (body: { facebookUserId: string; facebookUserToken: string; addInstagram?: boolean }): Promise<unknown> =>
    http.post<unknown>('/facebook', { body }),
  addTelegram: (body: { name: string; token: string }): Promise<Connection> => http.post<Connection>('/telegram', { body }),
  // POST /hubregister/ {id}: the server reads only the connection's id.
  hubRegister: (id: ID): Promise<unknown> => http.post<unknown>('/hubregister/', { body: { id } }),
};

// The chat's tag picker: POST /tags/sync replaces the ticket's whole tag set ([] clears
// it) and answers the ticket with its new tags.
export const ticketTagsApi = {
  sync: (ticketId: ID, tagIds: ID[]): Promise<Ticket> => http.post<Ticket>('/tags/sync', { body: { ticketId, tags: tagIds } }),
};

// WABA template confirmation (spec sections 5, 7, 8).
export const wabaApi = {
  templates: (): Promise<{ templates: WabaTemplate[] }> => http.get<{ templates: WabaTemplate[] }>('/wabatemplates'),
  sendTemplate: (body: WabaTemplateSend): Promise<{ providerId: string }> =>
    http.post<{ providerId: string }>('/waba/sendtemplatemessage/', { body }),
};

// The hosting operator's routes (docs/api.md, tenants and cluster).
export const tenantsApi = {
  list: (): Promise<{ tenants: Tenant[] }> => http.get<{ tenants: Tenant[] }>('/tenants'),
  create: (body: TenantInput): Promise<{ tenant: Tenant; admin: User }> =>
    http.post<{ tenant: Tenant; admin: User }>('/tenants', { body }),
  setDisabled: (id: ID, disabled: boolean): Promise<Tenant> => http.put<Tenant>(`/tenants/${id}`, { body: { disabled } }),
};

// The messaging API's tokens (docs/messaging-api.md): admin and super only.
export const apiTokensApi = {
  list: (): Promise<ApiToken[]> => http.get<ApiToken[]>('/apiTokens'),
  create: (name: string): Promise<CreatedApiToken> => http.post<CreatedApiToken>('/apiTokens', { body: { name } }),
  revoke: (id: ID): Promise<ApiToken> => http.delete<ApiToken>(`/apiTokens/${id}`),
};

export const supportApi = {
  cluster: (): Promise<ClusterView> => http.get<ClusterView>('/cluster'),
  ready: (): Promise<{ status: string }> => http.get<{ status: string }>('/readyz'),
};

// The calendar subscription link of /googlecalendar: url is answered only when a
// link is made (docs/calendar.md).
export interface CalendarFeedView {
  active: boolean;
  issuedAt?: string;
  url?: string;
}

export const calendarFeedApi = {
  status: (): Promise<CalendarFeedView> => http.get<CalendarFeedView>('/calendar-feed'),
  issue: (): Promise<CalendarFeedView> => http.post<CalendarFeedView>('/calendar-feed'),
  revoke: (): Promise<CalendarFeedView> => http.delete<CalendarFeedView>('/calendar-feed'),
};
