/** Ids shared by package.json contributions and code. Kept dependency-free: loaded at activation. */
export const CHAT_VIEW_ID = 'headroom.chatView';
