/* The referee's verdicts in the conflict dialog, in the reader's language. The engine's own
   `text` of a result is English (the rules write it so); the screen's game drawer
   (games/<game>.js) says the same verdict in the session's language from the result and the
   deal's view after the entry, as the server's explain() does. One job: conflict.js's
   `explain(side, item)` for one conflict.

   - mine: the sentences the tablet showed when it accepted the entry, kept with the queued
     record (`said`), so the dialog says exactly what the scorer read then;
   - the server's: its stored result (never the tablet's own verdict: in a verdict conflict the
     two differ) said by the drawer over the deal's view after that entry. The last one's view
     is the server's own (the deal as it answered); an earlier one's comes from the tablet's
     engine playing the server's entries from the deal's start. The drawer speaks of this
     screen's session (its names, its game's sentences), so a conflict of another session's
     deal keeps the engine's text. */

/** {explain(side, item) -> string | null}; `drawer` and `engine` may be null (then nothing is
    said here and conflict.js shows the engine's text). */
export async function conflictVerdicts(conflict, { drawer, engine, session }) {
  const said = new Map();
  if (!drawer) return { explain: () => null };
  for (const record of (conflict.mine && conflict.mine.records) || []) {
    if (Array.isArray(record.said) && record.said.length) said.set("mine:" + record.key, record.said.join(" "));
  }
  const deal = conflict.server && conflict.server.deal;
  if (deal && deal.state && Number(deal.session) === Number(session)) {
    const entries = serverEntries(conflict);
    const views = await viewsAfter(deal, conflict, engine).catch(() => new Map());
    for (const entry of entries) {
      const view = entry.seq === deal.seq ? deal.state : views.get(entry.seq);
      if (!view || !entry.result) continue;
      try {
        const sentences = drawer.sentences(view, entry.result);
        if (sentences.length) said.set("server:" + entry.seq, sentences.join(" "));
      } catch (error) { /* a result the drawer cannot read: the engine's text stays */ }
    }
  }
  return {
    explain(side, item) {
      return said.get(side === "mine" ? "mine:" + item.key : "server:" + item.seq) ?? null;
    },
  };
}

function serverEntries(conflict) {
  const server = conflict.server || {};
  if (conflict.kind === "verdict") return server.entry ? [server.entry] : [];
  if (!Array.isArray(server.entries)) return [];
  const first = ((conflict.mine && conflict.mine.records) || []).find((r) => r.kind === "entry");
  const since = first ? first.expected_seq : 0;
  return server.entries.filter((e) => e.active !== false && e.seq > since);
}

/** The deal's view after each of the server's active entries (seq -> view), played by the
    tablet's engine from a fresh deal with the server's dealer and options. Only the views are
    taken (their `last` is replaced by the server's result when said). Empty when the engine
    cannot play them (another engine version refusing one, a game whose deals carry something
    over from the deal before): the last entry still has the server's own view. */
async function viewsAfter(deal, conflict, engine) {
  const views = new Map();
  const entries = ((conflict.server && conflict.server.entries) || []).filter((e) => e.active !== false);
  if (!engine || conflict.kind !== "stale" || entries.length < 2) return views;
  const state = deal.state;
  let answer = await engine.newDeal({ game: deal.game, players: (deal.players || []).length || state.players,
    dealer: deal.dealer, options: state.options || {} });
  for (const entry of entries.sort((a, b) => a.seq - b.seq)) {
    if (!answer || !answer.snapshot) return views;
    answer = await engine.apply(answer.snapshot, entry.payload);
    if (answer && answer.view) views.set(entry.seq, { ...answer.view, outcome: answer.outcome ?? answer.view.outcome ?? null });
  }
  return views;
}
