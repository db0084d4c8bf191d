/* Test doubles for the offline modules' tests (node --test): a small model of the API's
   deal and entry endpoints behind a fake fetch, with a network that can be cut, lose
   answers or fail, a clock whose timers the test fires, and an event target for
   `online`/`offline`. The server keeps the API's promises that the sync relies on: a stored
   idempotency key is answered with the stored entry (200), a stale expected_seq is a 409
   with the current seq, and a deal start with a known client id returns the same deal
   (what the server does). */

export class FakeServer {
  constructor({ verdict = (payload) => ({ takes: payload.cards ? payload.cards.length % 4 : 0 }) } = {}) {
    this.verdict = verdict;
    this.deals = new Map();
    this.nextDeal = 100;
    this.requests = [];        // every request that reached the server: [method, path, body]
    this.online = true;        // false: fetch fails before reaching the server
    this.loseAnswers = 0;      // this many next answers are lost after the server acted
    this.failures = [];        // statuses (or [status, body]) to answer, without acting, before acting again
    this.fetch = this.fetch.bind(this);
  }

  deal(id) { return this.deals.get(id); }

  startDeal(session) {
    const deal = { id: this.nextDeal++, session, seq: 0, entries: [], client: null };
    this.deals.set(deal.id, deal);
    return deal;
  }

  /** Another device records on the deal (what makes this tablet's expected_seq stale). */
  recordElsewhere(id, payload) {
    const deal = this.deals.get(id);
    deal.entries.push({ seq: deal.seq + 1, payload, result: this.verdict(payload), idempotency_key: `other-${deal.seq}` });
    deal.seq += 1;
  }

  view(deal) {
    const finished = Boolean(deal.finished);
    return { id: deal.id, session: deal.session, seq: deal.seq, status: finished ? "finished" : "running", finished,
      later_deals: Boolean(deal.later) };
  }

  async fetch(address, options = {}) {
    const url = address.split("?")[0];
    const method = options.method || "GET";
    if (!this.online) throw new TypeError("Failed to fetch");
    if (this.failures.length) {
      const failure = this.failures.shift();
      return Array.isArray(failure) ? answer(...failure) : answer(failure, { error: "Server busy.", code: "unavailable" });
    }
    const body = options.body ? JSON.parse(options.body) : null;
    this.requests.push([method, url, body]);
    const [status, data] = this.handle(method, url, body);
    if (this.loseAnswers > 0) {
      this.loseAnswers -= 1;
      throw new TypeError("Failed to fetch");  // the server acted; the tablet never hears
    }
    return answer(status, data);
  }

  handle(method, url, body) {
    let match = url.match(/^\/api\/sessions\/(\d+)\/deals\/$/);
    if (match && method === "POST") {
      const session = Number(match[1]);
      const known = [...this.deals.values()].find((d) => body.client_id && d.client === body.client_id);
      if (known) return [200, this.view(known)];
      const deal = this.startDeal(session);
      deal.client = body.client_id || null;
      return [201, this.view(deal)];
    }
    match = url.match(/^\/api\/deals\/(\d+)\/(entries\/|undo\/|tablet-version\/)?$/);
    const deal = match && this.deals.get(Number(match[1]));
    if (!deal) return [404, { error: "Not found.", code: "not_found" }];
    if (match[2] === undefined && method === "GET") return [200, this.view(deal)];
    if (match[2] === "entries/" && method === "GET") return [200, deal.entries.map((e) => ({ ...e }))];
    if (match[2] === "tablet-version/" && method === "POST") {
      if (body.expected_seq !== deal.seq) return [409, stale(deal)];
      if (body.entries.some((e) => e.payload.type === "illegal")) {
        return [400, { error: "The tablet's entry 1 is refused: That card was played already.", code: "illegal_entry" }];
      }
      deal.entries = deal.entries.slice(0, body.since_seq);
      for (const { payload, idempotency_key: key } of body.entries) {
        deal.entries.push({ seq: deal.entries.length + 1, payload, result: this.verdict(payload), idempotency_key: key });
      }
      deal.seq = deal.entries.length;
      return [200, { deal: this.view(deal) }];
    }
    if (match[2] === "undo/" && method === "POST") {
      if (body.expected_seq !== deal.seq) return [409, stale(deal)];
      deal.entries.pop();
      deal.seq -= 1;
      return [200, { deal: this.view(deal) }];
    }
    if (match[2] === "entries/" && method === "POST") {
      const { idempotency_key: key, expected_seq: expected, ...payload } = body;
      const earlier = deal.entries.find((e) => key && e.idempotency_key === key);
      if (earlier) return [200, { entry: { ...earlier }, deal: this.view(deal), replayed: true }];
      if (expected !== undefined && expected !== deal.seq) return [409, stale(deal)];
      if (payload.type === "illegal") return [400, { error: "That card was played already.", code: "illegal_entry" }];
      const entry = { seq: deal.seq + 1, payload, result: this.verdict(payload), idempotency_key: key };
      deal.entries.push(entry);
      deal.seq += 1;
      return [201, { entry: { ...entry }, deal: this.view(deal), replayed: false }];
    }
    return [405, { error: "Method not allowed.", code: "refused" }];
  }
}

function stale(deal) {
  return {
    error: `Another device recorded first: this deal is now at entry ${deal.seq}. Reload and try again.`,
    code: "stale_seq",
    seq: deal.seq,
  };
}

function answer(status, data) {
  return { status, json: async () => JSON.parse(JSON.stringify(data)) };
}

/** Timers the test fires by hand, so a backoff is checked without waiting for it. */
export class FakeClock {
  constructor() {
    this.timers = new Map();
    this.next = 1;
    this.delays = [];
    this.setTimeout = (fn, ms) => {
      const id = this.next++;
      this.timers.set(id, fn);
      this.delays.push(ms);
      return id;
    };
    this.clearTimeout = (id) => { this.timers.delete(id); };
  }

  get pending() { return this.timers.size; }

  /** Run every timer due now (all of them: the fake time jumps to the latest). */
  fire() {
    const due = [...this.timers.values()];
    this.timers.clear();
    due.forEach((fn) => fn());
  }
}

/** The browser's `online`/`offline` events and navigator.onLine, for one test. */
export class FakeNetwork extends EventTarget {
  constructor(server) {
    super();
    this.server = server;
    this.isOnline = () => server.online;
  }

  cut() {
    this.server.online = false;
    this.dispatchEvent(new Event("offline"));
  }

  restore() {
    this.server.online = true;
    this.dispatchEvent(new Event("online"));
  }
}

/** navigator.locks for two tabs of one device: one holder at a time, in the order asked. */
export class FakeLocks {
  constructor() {
    this.tail = Promise.resolve();
    this.held = [];
  }

  request(name, work) {
    const run = this.tail.then(async () => {
      this.held.push(name);
      try { return await work(); } finally { this.held.pop(); }
    });
    this.tail = run.catch(() => {});
    return run;
  }
}
