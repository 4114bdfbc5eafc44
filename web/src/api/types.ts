// Wire shapes of the server (spec sections 3 and 7). Ids are numbers; times are ISO strings.

export type ID = number;

export type Profile = 'user' | 'userplus' | 'superv' | 'manager' | 'admin' | 'super';

export type TicketStatus = 'pending' | 'open' | 'closed';

export type Channel = 'whatsapp' | 'waba' | 'facebook' | 'instagram' | 'telegram' | 'socket';

export interface QueueRef {
  id: ID;
  name: string;
  color: string;
}

export interface Queue extends QueueRef {
  greetingMessage?: string;
  startWork?: string;
  endWork?: string;
  absenceMessage?: string;
  nps?: boolean;
  encouragingMessage?: string;
  ratingQuestion?: string; // the queue's own satisfaction question; empty sends the default
  url?: string;
}

export interface SessionUser {
  id: ID;
  name: string;
  email: string;
  profile: Profile | string;
  companyId: ID;
  queues: QueueRef[];
  whatsappId?: ID;
}

export interface AuthResponse {
  token: string;
  user: SessionUser;
}

export interface UserRef {
  id: ID;
  name: string;
}

export interface User extends Omit<SessionUser, 'whatsappId'> {
  whatsappId?: ID | null; // null: no default connection
  createdAt?: string;
  updatedAt?: string;
}

// The user form (POST /users, PUT /users/{id}). On update an empty password, and an
// absent profile / queueIds / whatsappId, leave the stored value unchanged.
export interface UserInput {
  name: string;
  email: string;
  password?: string;
  // Proves a change of one's own password (the server requires it then).
  currentPassword?: string;
  profile?: Profile | string;
  queueIds?: ID[];
  whatsappId?: ID | null;
}

export interface UserPage {
  users: User[];
  count: number;
  hasMore: boolean;
}

export type QueueInput = Omit<Queue, 'id'>;

export interface TagPage {
  tags: Tag[];
  count: number;
  hasMore: boolean;
}

export interface QuickAnswerPage {
  quickAnswers: QuickAnswer[];
  count: number;
  hasMore: boolean;
}

export interface Tag {
  id: ID;
  name: string;
  color: string;
}

export interface ExtraInfo {
  id?: ID;
  name: string;
  value: string;
}

export type ClosingStatus = 0 | 1 | null;

export interface SalesOpp {
  id: ID;
  name: string;
  value: string;
  stage: string;
  closingStatus: ClosingStatus;
}

export interface AppraisalData {
  totalsum: number;
  totalcount: number;
}

export interface Contact {
  id: ID;
  name: string;
  number: string;
  email: string;
  profilePicUrl?: string;
  displayPic?: string;
  type?: string;
  isGroup?: boolean;
  extraInfo?: ExtraInfo[];
  salesOpps?: SalesOpp[];
  appraisalData?: AppraisalData | null;
}

export interface Ticket {
  id: ID;
  uuid?: string;
  status: TicketStatus;
  userId?: ID | null;
  user?: UserRef | null;
  contactId: ID;
  contact?: Contact;
  isGroup?: boolean;
  unreadMessages: number;
  queueId?: ID | null;
  queue?: QueueRef | null;
  whatsappId?: ID;
  channel?: Channel | string;
  tags?: Tag[];
  // Users who accepted an invitation to the ticket (engine.Ticket.Guests).
  guests?: ID[];
  lastMessage?: string;
  protocol?: string;
  createdAt?: string;
  updatedAt: string;
}

export type MediaType =
  | 'image'
  | 'audio'
  | 'video'
  | 'call_log'
  | 'import_log'
  | 'action'
  | 'whisper'
  | 'chatgpt'
  | 'document'
  | string;

export interface QuotedMessage {
  id: ID;
  fromMe: boolean;
  body: string;
  contactName?: string;
}

export type Ack = 0 | 1 | 2 | 3 | 4;

export interface Message {
  id: ID;
  ticketId: ID;
  body: string;
  read?: boolean;
  fromMe: boolean;
  senderId?: ID;
  contact?: Contact;
  mediaUrl?: string;
  mediaType?: MediaType;
  quotedMsg?: QuotedMessage | null;
  ack: Ack | number;
  isDeleted?: boolean;
  /** The channel refused it for good: never sent, never retried. */
  failed?: boolean;
  /** The latest translation of the body (PUT /messages/{id}) and its language (cn, es, gb). */
  translation?: string;
  translationLanguage?: string;
  createdAt: string;
  updatedAt?: string;
}

export interface Setting {
  key: string;
  value: string;
}

export interface QuickAnswer {
  id: ID;
  shortcut: string;
  message: string;
}

export interface Connection {
  id: ID;
  name: string;
  number?: string;
  status: string;
  channel: Channel | string;
  isDefault?: boolean;
  // The fields of the Connections page (spec section 3; docs/api.md "Connections").
  outChannel?: boolean;
  dailyMax?: number;
  greetingMessage?: string;
  farewellMessage?: string;
  greetingMediaUrl?: string; // signed link to the greeting image
  farewellMediaUrl?: string;
  queues?: Pick<Queue, 'id' | 'name' | 'color'>[];
  qrcode?: string;
  retries?: number;
  updatedAt?: string;
}

// The connection form of POST/PUT /whatsapp, sent as multipart.
export interface ConnectionInput {
  name: string;
  number: string;
  isDefault: boolean;
  outChannel: boolean;
  dailyMax: number;
  greetingMessage: string;
  farewellMessage: string;
  queueIds: ID[];
  greetingMedia?: File | null; // a new greeting image
  farewellMedia?: File | null;
  removeGreetingMedia?: boolean;
  removeFarewellMedia?: boolean;
}

// Realtime "whatsapp" (a connection created, changed or removed) and
// "whatsappSession" (its session status, from the connection actor).
export interface ConnectionEvent {
  action: 'create' | 'update' | 'delete';
  whatsapp?: Connection;
  whatsappId?: ID;
}

export interface ConnectionSessionEvent {
  action: 'update';
  session: { id: ID; status: string; qrcode?: string; number?: string; updatedAt?: string };
}

export interface HistoryEntry {
  id: ID;
  createdAt: string;
  oldusername: string;
  newusername: string;
  action: string;
  oldqueuename: string;
  newqueuename: string;
}

// Pages may carry nextCursor (keyset paging); when present it is sent back as `cursor`
// for the next page instead of pageNumber.
export interface TicketPage {
  tickets: Ticket[];
  count: number;
  hasMore: boolean;
  nextCursor?: string;
}

export interface MessagePage {
  messages: Message[];
  hasMore: boolean;
  nextCursor?: string;
  ticket?: Ticket;
}

// Realtime payloads (spec section 7). `seq` orders every event of the socket.
export interface TicketEvent {
  action: 'update' | 'delete' | 'updateUnread' | 'create' | 'reload';
  ticket?: Ticket;
  ticketId?: ID;
  // A delete with moved: true says the ticket left a status room (whaticket's room
  // semantics: it is followed by the update to the room it entered); the ticket
  // still exists. Without it, a delete is the ticket's deletion.
  moved?: boolean;
  seq?: number;
}

export interface AppMessageEvent {
  action: 'create' | 'update';
  message: Message;
  ticket?: Ticket;
  contact?: Contact;
  seq?: number;
}

// The server sends the contact on create and update, only its id on delete.
export type ContactEvent =
  | { action: 'create' | 'update'; contact: Contact; seq?: number }
  | { action: 'delete'; contactId: ID; seq?: number };

// Reference-data events (server: transport/http users.go, queues.go, tags.go,
// quickanswers.go, settings.go): create/update carry the record, delete its id.
export interface UserEvent {
  action: 'create' | 'update' | 'delete';
  user?: User;
  userId?: ID;
  seq?: number;
}

export interface QueueEvent {
  action: 'create' | 'update' | 'delete';
  queue?: Queue;
  queueId?: ID;
  seq?: number;
}

export interface TagEvent {
  action: 'create' | 'update' | 'delete';
  tag?: Tag;
  tagId?: ID;
  seq?: number;
}

// Announcement (server: transport/http/announcements.go): priority 1 red, 2 orange,
// 3 grey; status true = active (the top bar shows the newest active one).
export interface Announcement {
  id: ID;
  title: string;
  text: string;
  priority: 1 | 2 | 3;
  mediaPath: string;
  mediaName: string;
  status: boolean;
  createdAt: string;
  updatedAt?: string;
}

export interface AnnouncementPage {
  records: Announcement[];
  count: number;
  hasMore: boolean;
}

export interface AnnouncementInput {
  title: string;
  text: string;
  priority: 1 | 2 | 3;
  status: boolean;
}

export interface AnnouncementEvent {
  action: 'create' | 'update' | 'delete';
  announcement?: Announcement;
  announcementId?: ID;
  seq?: number;
}

// The "invitation" socket event (server: transport/realtime/invitation.go): create to
// the invitee; accept / decline to the inviter. to is the user the event is for, uTo
// the invitee's name, uFrom the inviter's, contact and profilePic the customer's,
// ticket the ticket id.
export interface InvitationEvent {
  action: 'create' | 'accept' | 'decline';
  to: ID;
  uTo: string;
  uFrom: string;
  userId: ID;
  userFrom: ID;
  contact: string;
  dateTime: string;
  profilePic: string;
  ticket: ID;
  ticketStatus: string;
  seq?: number;
}

export interface QuickAnswerEvent {
  action: 'create' | 'update' | 'delete';
  quickAnswer?: QuickAnswer;
  quickAnswerId?: ID;
  seq?: number;
}

export interface SettingEvent {
  action: 'update';
  setting: Setting;
  seq?: number;
}

export interface ResyncEvent {
  reason: string;
  seq?: number;
}

// GET /wacloudapi/embedded/config (server: transport/channel/waba/embedded.go): the
// Meta app id and embedded signup configuration id (FB.login config_id); enabled is
// false (and the ids empty) while the server lacks META_APP_ID, META_APP_SECRET or
// META_CONFIG_ID.
export interface WabaEmbeddedConfig {
  appId: string;
  configId: string;
  enabled: boolean;
}

// POST /wacloudapi/embedded: the code of FB.login and the ids of the
// WA_EMBEDDED_SIGNUP message; pin (six digits) is optional — the server picks one.
export interface WabaEmbeddedSignup {
  code: string;
  wabaId: string;
  phoneNumberId: string;
  pin?: string;
}

// An approved WABA message template (HSM), as GET /wabatemplates lists it
// (server: transport/channel/waba/api.go).
export interface WabaTemplate {
  id: string;
  templateName: string;
  language: string;
  category: string;
  whatsappId: ID; // the WABA connection whose business account has it
}

// POST /waba/sendtemplatemessage/: the body placeholders {{1}}…{{4}} take contactName,
// patientName, attendantName and dateTime, in that order.
export interface WabaTemplateSend {
  templateId: string;
  contactName: string;
  patientName: string;
  attendantName: string;
  dateTime: string;
  lcontactId: ID;
  lticketId: ID;
}

// A scheduled message or an agenda task (docs/api.md section 2.8b). sendAt is RFC 3339 UTC.
export interface Schedule {
  id: ID;
  kind: 'message' | 'task';
  taskName?: string;
  contactId: ID;
  contact: { id: ID; name: string; number: string } | null;
  phoneNumber: string;
  message: string;
  imagePath: string;
  wpId: ID;
  userId: ID;
  ticketId: ID;
  tagFilter: ID[];
  sendAt: string;
  status: 'pending' | 'sent' | 'error';
  errorMessage: string;
}

export interface ScheduleInput {
  contactId?: ID | null;
  phoneNumber?: string;
  message: string;
  wpId?: ID | null;
  ticketId?: ID | null;
  sendAt: string;
}

export interface SchedulePage {
  schedules: Schedule[];
  count: number;
  hasMore: boolean;
}

export interface ScheduleEvent {
  action: 'create' | 'update' | 'delete';
  scheduledMessage?: Schedule;
  scheduledMessageId?: ID;
  seq?: number;
}

// Tenants (GET /tenants, docs/api.md): a company with its counts.
export interface Tenant {
  id: ID;
  name: string;
  createdAt: string;
  disabled: boolean;
  users: number;
  connections: number;
  tickets: number;
  openTickets: number;
  pendingTickets: number;
}

export interface TenantInput {
  name: string;
  adminName: string;
  email: string;
  password: string;
}

export interface TenantEvent {
  action: 'create' | 'update';
  tenant: Tenant;
}

// GET /cluster: the members of the actor cluster as the answering node sees them.
export interface ClusterMember {
  id: string;
  node: string;
  address: string;
  state: 'alive' | 'not ready' | 'unreachable';
  self: boolean;
  version?: string;
  actors: Record<string, number>;
}

export interface ClusterView {
  mode: 'single' | 'cluster';
  node: string;
  members: ClusterMember[];
}
// The internal chat (docs/api.md, "Internal chat"): whaticket's Chat, ChatUser and
// ChatMessage records.
export interface ChatUser {
  chatId: ID;
  userId: ID;
  unreads: number;
  user?: { id: ID; name: string };
}

export interface InternalChat {
  id: ID;
  uuid: string;
  title: string;
  ownerId: ID;
  owner?: { id: ID; name: string };
  lastMessage: string;
  users: ChatUser[];
  createdAt: string;
  updatedAt: string;
}

export interface InternalChatPage {
  records: InternalChat[];
  count: number;
  hasMore: boolean;
}

export interface InternalChatMessage {
  id: ID;
  chatId: ID;
  senderId: ID;
  message: string;
  mediaPath?: string;
  mediaName?: string;
  mediaType?: string; // image, audio, video, document
  mediaUrl?: string; // a signed link to the file
  sender?: { id: ID; name: string };
  createdAt: string;
}

export interface InternalChatMessagePage {
  records: InternalChatMessage[];
  count: number;
  hasMore: boolean;
}

// The realtime "chat" event, sent to the chat's participants only.
export type InternalChatEvent =
  | { action: 'create' | 'update'; record?: InternalChat; chat: InternalChat }
  | { action: 'new-message'; newMessage: InternalChatMessage; chat: InternalChat }
  | { action: 'delete'; id: ID };

// Messaging-API tokens (GET /apiTokens, docs/messaging-api.md): never the secret,
// which only the create answer carries (token).
export interface ApiToken {
  id: ID;
  companyId: ID;
  name: string;
  prefix: string;
  userId: ID;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiToken extends ApiToken {
  token: string;
}

export interface ApiTokenEvent {
  action: 'create' | 'update';
  apiToken: ApiToken;
}

// AI assistance (docs/ai.md): the tenant's OpenAI-compatible endpoint, without its key.
// An attendant's GET /iaconfig answers only `configured`.
export interface AIConfigView {
  baseUrl?: string;
  model?: string;
  speechModel?: string;
  voice?: string;
  hasKey?: boolean;
  configured: boolean;
  updatedAt?: string;
}

export interface AIConfigInput {
  baseUrl: string;
  apiKey: string; // empty keeps the stored key
  model: string;
  speechModel: string;
  voice: string;
}

// An NLP intent (/NLPConfig): a new ticket whose first message matches goes to queueId.
export interface AIIntent {
  id: ID;
  name: string;
  examples: string[];
  queueId: ID;
}

export type AIIntentInput = Omit<AIIntent, 'id'>;
