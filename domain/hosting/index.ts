// The public face of this capability: what other capabilities and the adapters may import (the layering check refuses anything else).
export { admitTicketCookie } from './admit-ticket-cookie.ts';
export { authenticateTicket, type TicketPrincipal } from './authenticate-ticket.ts';
export { blobBytes } from './blob-bytes.ts';
export { type ContentEncoding, compressedVariant } from './compressed-variants.ts';
export { type AppPages, aboutMarkdown, copyLine, describeAppPages } from './describe-app-pages.ts';
export type { OpeningPrincipal } from './issue-ticket.ts';
export { type CatalogEntry, listCatalog } from './list-catalog.ts';
export { listSharedApps, type SharedEntry } from './list-shared-apps.ts';
export { listVisitorCatalogs, type VisitorCatalog } from './list-visitor-catalogs.ts';
export { openApp, openAppAnonymously } from './open-app.ts';
export { type OpenRecorder, startOpenRecorder } from './open-recorder.ts';
export { renewTicket } from './renew-ticket.ts';
export { filesSecretOf, TICKET_PREFIX, TICKET_TTL_MS } from './ticket-format.ts';
