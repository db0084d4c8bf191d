// Runs the Elgeta drawer's pure parts (static/js/table/games/elgeta.js) under Node on the views
// and snapshots the server's engine answered, for tests/offline/test_elgeta_drawer.py: reads
// {language, notation, text, names, cases} as JSON on stdin and writes one answer per case:
// an entry ({view, snapshot, payload}) answers {sentences, describe, forecast, rows}; a tie
// ({hint: {view, snapshot, number, payload}}) answers the tie-break round's hint. No DOM is
// needed: only the words (S.T, as the i18n JSON carries them), the notation and the language.
import { S } from "../../static/js/table/shared.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
S.T = { offline_table: request.text, names: request.names };
S.screen = { dataset: { notation: request.notation } };
globalThis.document = { documentElement: { lang: request.language } };
const module = await import("../../static/js/table/games/elgeta.js");
const drawer = module.default;
const answers = request.cases.map((item) => {
  if (item.hint) {
    const { view, snapshot, number, payload } = item.hint;
    return module.tieBreakHint({ view, snapshot }, number, payload);
  }
  const { view, snapshot, payload } = item;
  const [forecast, canFinish] = module.forecastText(view.forecast);
  return {
    sentences: view.last ? drawer.sentences(view, view.last) : [],
    describe: drawer.describe(payload),
    forecast: [forecast, canFinish],
    rows: view.finished ? null : module.trickRows(view, snapshot),
  };
});
process.stdout.write(JSON.stringify(answers));
