/**
 * What brought a change to an informer's cache: the first list (or, for a handler subscribing after it,
 * the replay of the cache), a later relist, a watch event, a resync tick, or the answer of a write through
 * the informer's client (read-your-writes).
 */
export type ChangeSource = "list" | "relist" | "watch" | "resync" | "write";
