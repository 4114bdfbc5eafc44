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
  seq?: number;
}

export interface AppMessageEvent {
  action: 'create' | 'update';
  message: Message;
  ticket?: Ticket;
  contact?: Contact;
  seq?: number;
}

export interface ContactEvent {
  action: 'update' | 'delete';
  contact: Contact;
  seq?: number;
}

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
