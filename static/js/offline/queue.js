/* The device's durable queue: what the tablet recorded and the server has not confirmed yet.

   Kept in IndexedDB, not in memory or localStorage, so that a reload, a closed tab or a
   device that went to sleep loses nothing, and a long offline evening does not hit
   localStorage's few megabytes. One job only: keep things in order and hand them out;
   sending them is sync.js's job.

   A record is an entry or a deal start:
     {kind: "entry", key, deal, payload, expected_seq, verdict?}
     {kind: "deal_start", key, session, deal, dealer?}
   `key` is the idempotency key (made once, here, and resent unchanged on every retry, so
   the server stores it once). `deal` is the server's id (a number) or, for a deal started
   offline, the tablet's client id (a string from newClientDealId()) until the server has
   accepted the deal start and dealAccepted() replaces it. `verdict` is what the tablet's own
   engine said of the entry, compared with the server's answer. Records come back in the
   order they were enqueued, with `order` (their place) and `at` (when).

   Beside the queue: the deals started offline and the server ids they got, the records a
   scorer set aside when resolving a conflict (kept, never silently dropped), drafts of
   half-entered forms, and when the server last confirmed something.

   The IndexedDB plumbing (promises for requests, a transaction's end) is idb's, a small promise
   wrapper over the same API, served by the site itself from node_modules
   (settings.VENDOR_STATIC; package-lock.json pins it with its integrity hash). */

import { wrap } from "../../vendor/idb/index.js";

const DB_VERSION = 1;

/** A client id for a deal started on this device; the server learns it with the deal start. */
export function newClientDealId() {
  return "client-" + newKey();
}

export function isClientDealId(deal) {
  return typeof deal === "string" && deal.startsWith("client-");
}

/** A fresh idempotency key (the API takes 1 to 80 characters). */
export function newKey() {
  const crypto = globalThis.crypto;
  if (crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Ask the browser not to evict this site's storage when the device runs short of space (a
    browser may clear IndexedDB of a site that is not "persisted"; an installed app is usually
    granted this). True when granted; false where the browser cannot promise it. */
export async function askToPersist(storage = globalThis.navigator && globalThis.navigator.storage) {
  if (!storage || typeof storage.persist !== "function") return false;
  if (typeof storage.persisted === "function" && (await storage.persisted())) return true;
  return Boolean(await storage.persist());
}

/** Open (or create) the queue's database. `indexedDB` defaults to the browser's; tests pass
    an in-memory one. Two queue objects over one database name see the same records. */
export async function openQueue({ name = "kortos-offline", indexedDB = globalThis.indexedDB, now = Date.now } = {}) {
  if (!indexedDB) throw new Error("This browser has no IndexedDB: offline recording is not available here.");
  // idb's openDB would use the global factory; the queue is given one (tests pass their own).
  const open = indexedDB.open(name, DB_VERSION);
  open.onupgradeneeded = () => {
    const db = open.result;
    // The queue's own auto-increment number is its order: IndexedDB hands it out inside the
    // writing transaction, so two tabs enqueueing at once still get distinct, rising places.
    const queue = db.createObjectStore("queue", { keyPath: "order", autoIncrement: true });
    queue.createIndex("key", "key", { unique: true });
    queue.createIndex("deal", "deal");
    db.createObjectStore("aside", { keyPath: "key" });
    db.createObjectStore("deals", { keyPath: "client" });
    db.createObjectStore("drafts", { keyPath: ["deal", "form"] });
    db.createObjectStore("meta", { keyPath: "name" });
  };
  const db = await wrap(open);
  // Another tab upgrading the schema must not wait for this one forever.
  db.addEventListener("versionchange", () => db.close());
  return new Queue(db, now);
}

class Queue {
  constructor(db, now) {
    this.db = db;
    this.now = now;
  }

  /** One transaction; `work(stores)` issues its requests (idb's: each a promise) and returns a
      promise of the result. The promise settles only once the transaction has committed, so a
      resolved write is on disk; a failure in `work` aborts it, so nothing of it is written. */
  async transact(names, mode, work) {
    const tx = this.db.transaction(names, mode);
    const stores = Object.fromEntries(names.map((n) => [n, tx.objectStore(n)]));
    let result;
    try {
      result = await work(stores, tx);
    } catch (error) {
      try { tx.abort(); } catch (e) { /* already over */ }
      await tx.done.catch(() => undefined);
      throw error;
    }
    await tx.done;
    return result;
  }

  /** Append an entry or a deal start; returns the stored record. A deal's client id that the
      server has already mapped is replaced by the server's id, so late records go to the right deal. */
  async enqueue(item) {
    const record = normalise(item, this.now());
    return this.transact(["queue", "deals"], "readwrite", async ({ queue, deals }) => {
      const mapped = isClientDealId(record.deal) ? await deals.get(record.deal) : undefined;
      if (mapped && mapped.server != null) record.deal = mapped.server;
      if (record.kind === "deal_start" && isClientDealId(record.deal)) {
        await deals.put({ client: record.deal, server: null, session: record.session });
      }
      const taken = await queue.index("key").getKey(record.key);
      if (taken !== undefined) throw new Error(`The idempotency key ${record.key} is already in the queue.`);
      record.order = await queue.add(record);
      return record;
    });
  }

  /** The first record still waiting, or null. */
  async peek() {
    return this.transact(["queue"], "readonly", async ({ queue }) => {
      const cursor = await queue.openCursor();
      return cursor ? cursor.value : null;
    });
  }

  /** Every waiting record in order; with `deal`, only that deal's. */
  async list({ deal } = {}) {
    const all = await this.transact(["queue"], "readonly", ({ queue }) => queue.getAll());
    return deal === undefined ? all : all.filter((r) => r.deal === deal);
  }

  /** How many records are waiting (what the screen shows); with `deal`, only that deal's. */
  async count({ deal } = {}) {
    if (deal !== undefined) return (await this.list({ deal })).length;
    return this.transact(["queue"], "readonly", ({ queue }) => queue.count());
  }

  /** The server has this record: it leaves the queue, and the sync time moves on. */
  async markSent(key) {
    const at = this.now();
    return this.transact(["queue", "meta"], "readwrite", async ({ queue, meta }) => {
      const order = await queue.index("key").getKey(key);
      if (order === undefined) throw new Error(`Nothing with the idempotency key ${key} is waiting.`);
      await queue.delete(order);
      await meta.put({ name: "lastSyncedAt", value: at });
      await remember(meta, key);
      return at;
    });
  }

  /** The server stored an entry this device sent outside the queue (online): its key is
      remembered, so a conflict never calls it another device's, and the sync time moves on. */
  async rememberSent(key) {
    const at = this.now();
    return this.transact(["meta"], "readwrite", async ({ meta }) => {
      await meta.put({ name: "lastSyncedAt", value: at });
      await remember(meta, key);
    });
  }

  /** The idempotency keys of the entries this device had stored on the server (the latest
      SENT_KEYS_KEPT of them). */
  async sentKeys() {
    const row = await this.transact(["meta"], "readonly", ({ meta }) => meta.get("sentKeys"));
    return row ? row.value : [];
  }

  /** Take records out of the queue for good (the scorer chose to discard them). */
  async remove(keys) {
    return this.transact(["queue"], "readwrite", async ({ queue }) => {
      const orders = await this._orders(queue, keys);
      for (const order of orders) await queue.delete(order);
      return orders.length;
    });
  }

  /** Move records out of the queue into the set-aside store, where listAside() still shows
      them: the scorer kept the server's version, and may re-enter them by hand. */
  async setAside(keys, reason) {
    const at = this.now();
    return this.transact(["queue", "aside"], "readwrite", async ({ queue, aside }) => {
      const orders = await this._orders(queue, keys);
      for (const order of orders) {
        const record = await queue.get(order);
        await aside.put({ ...record, aside_at: at, reason });
        await queue.delete(order);
      }
      return orders.length;
    });
  }

  async listAside() {
    const all = await this.transact(["aside"], "readonly", ({ aside }) => aside.getAll());
    return all.sort((a, b) => a.order - b.order);
  }

  async clearAside(keys) {
    return this.transact(["aside"], "readwrite", async ({ aside }) => { for (const key of keys) await aside.delete(key); });
  }

  /** Change waiting records in place (sync renumbers expected_seq, or keeps a conflict with
      the record so that it survives a reload): `changes` maps a key to the fields to set. */
  async update(changes) {
    return this.transact(["queue"], "readwrite", async ({ queue }) => {
      for (const [key, fields] of Object.entries(changes)) {
        const order = await queue.index("key").getKey(key);
        if (order === undefined) throw new Error(`Nothing with the idempotency key ${key} is waiting.`);
        const record = await queue.get(order);
        const next = { ...record, ...fields, key: record.key, order: record.order };
        for (const [field, value] of Object.entries(fields)) if (value === undefined) delete next[field];
        await queue.put(next);
      }
    });
  }

  /** The server accepted the deal started as `client` and calls it `server`: in one
      transaction, the deal start leaves the queue and every waiting record and draft of that
      deal now names the server's id (a tab closed half-way cannot leave entries pointing at
      a deal start that is gone). */
  async dealAccepted(client, server) {
    if (!isClientDealId(client)) throw new Error(`${client} is not a client deal id.`);
    if (!(Number.isInteger(server) && server > 0)) throw new Error(`${server} is not a deal id of the server.`);
    const at = this.now();
    return this.transact(["queue", "deals", "drafts", "meta"], "readwrite", async ({ queue, deals, drafts, meta }) => {
      const known = await deals.get(client);
      await deals.put({ ...(known || {}), client, server });
      const records = await queue.index("deal").getAll(client);
      for (const record of records) {
        if (record.kind === "deal_start") await queue.delete(record.order);
        else queue.put({ ...record, deal: server });
      }
      const all = await drafts.getAll();
      for (const draft of all.filter((d) => d.deal === client)) {
        await drafts.delete([client, draft.form]);
        await drafts.put({ ...draft, deal: server });
      }
      await meta.put({ name: "lastSyncedAt", value: at });
      return records.length;
    });
  }

  /** The server's id for a deal started offline (null while the server has not accepted it). */
  async serverDealId(client) {
    const known = await this.transact(["deals"], "readonly", ({ deals }) => deals.get(client));
    return known ? known.server : null;
  }

  /** The server confirmed something sent outside the queue (an entry saved online). */
  async noteSynced() {
    const at = this.now();
    return this.transact(["meta"], "readwrite", async ({ meta }) => { await meta.put({ name: "lastSyncedAt", value: at }); });
  }

  /** When the server last confirmed a record (milliseconds since the epoch), or null. */
  async lastSyncedAt() {
    const row = await this.transact(["meta"], "readonly", ({ meta }) => meta.get("lastSyncedAt"));
    return row ? row.value : null;
  }

  // -- drafts: a half-entered form, per deal and form -------------------------------------------
  async saveDraft(deal, form, data) {
    const at = this.now();
    return this.transact(["drafts"], "readwrite", async ({ drafts }) => { await drafts.put({ deal, form, data, at }); });
  }

  async loadDraft(deal, form) {
    const row = await this.transact(["drafts"], "readonly", ({ drafts }) => drafts.get([deal, form]));
    return row ? row.data : null;
  }

  async clearDraft(deal, form) {
    return this.transact(["drafts"], "readwrite", async ({ drafts }) => { await drafts.delete([deal, form]); });
  }

  close() {
    this.db.close();
  }

  async _orders(queue, keys) {
    const orders = [];
    for (const key of keys) {
      const order = await queue.index("key").getKey(key);
      if (order !== undefined) orders.push(order);
    }
    return orders;
  }
}

/** How many of its stored entries' keys a device remembers: more than an evening's deals of
    any game hold between two syncs. */
const SENT_KEYS_KEPT = 2000;

async function remember(meta, key) {
  const row = await meta.get("sentKeys");
  const keys = row ? row.value : [];
  if (keys.includes(key)) return;
  keys.push(key);
  await meta.put({ name: "sentKeys", value: keys.slice(-SENT_KEYS_KEPT) });
}

function normalise(item, at) {
  if (!item || (item.kind !== "entry" && item.kind !== "deal_start")) {
    throw new Error('A queued record is an entry or a deal start: kind must be "entry" or "deal_start".');
  }
  const key = item.key === undefined ? newKey() : item.key;
  if (typeof key !== "string" || key.length < 1 || key.length > 80) {
    throw new Error("The idempotency key must be text of 1 to 80 characters.");
  }
  const deal = item.deal;
  if (!(Number.isInteger(deal) && deal > 0) && !isClientDealId(deal)) {
    throw new Error("The deal must be the server's id (a whole number) or a client id from newClientDealId().");
  }
  const record = { ...item, key, deal, at };
  delete record.order;
  if (item.kind === "entry") {
    if (!item.payload || typeof item.payload !== "object" || Array.isArray(item.payload)) {
      throw new Error("An entry's payload must be an object with a type.");
    }
    if (!Number.isInteger(item.expected_seq) || item.expected_seq < 0) {
      throw new Error("An entry's expected_seq must be a whole number of 0 or more.");
    }
  } else {
    if (!isClientDealId(deal)) throw new Error("A deal start names the deal by its client id.");
    if (!(Number.isInteger(item.session) && item.session > 0)) {
      throw new Error("A deal start names its session by the server's id.");
    }
  }
  return record;
}
