/* The offline path (placeholder until wired): nothing held, online recording only. */
export function startOffline() { return Promise.resolve(false); }
