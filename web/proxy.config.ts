// API prefixes the Vite dev server forwards to the Go server. The production binary
// serves the app and these routes on one port, so this list only matters in `npm run dev`.
// Keep it the single place that names them.
export const apiPrefixes = [
  '/auth',
  '/tickets',
  '/tickets-export-report',
  '/ticketinvite',
  '/messages',
  '/allmessages',
  '/opportunity',
  '/contacts',
  '/contact',
  '/users',
  '/queue',
  '/activeQueues',
  '/tags',
  '/quickAnswers',
  '/settings',
  '/whatsapp',
  '/whatsappsession',
  '/whatsappcreds',
  '/hubregister',
  '/facebook',
  '/wacloudapi',
  '/waba',
  '/wabatemplates',
  '/scheduledMessages',
  '/agenda',
  '/chats',
  '/announcements',
  '/catalog',
  '/supervision',
  '/maps',
  '/public',
  '/socket.io',
] as const;

// Some API prefixes are also app routes (/tickets, /contacts, /users, /quickAnswers, /chats).
// A browser navigation asks for text/html: that one is the app's, not the API's.
export function isPageNavigation(method: string | undefined, accept: string | undefined): boolean {
  return method === 'GET' && (accept ?? '').includes('text/html');
}
