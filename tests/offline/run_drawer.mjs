// Runs a game's offline drawer (static/js/table/games/<game>.js) under Node on the views the
// server's engine answered, for tests/offline/test_michigan_drawer.py: reads
// {game, language, notation, text, names, cases: [{view, payload}]} as JSON on stdin and writes
// [{sentences, describe}] on stdout. The drawer's pure parts need no DOM: only the words
// (S.T, as the i18n JSON carries them), the notation and the page's language.
import { S } from "../../static/js/table/shared.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf-8"));
S.T = { offline_table: request.text, names: request.names };
S.screen = { dataset: { notation: request.notation } };
globalThis.document = { documentElement: { lang: request.language } };
const drawer = (await import(`../../static/js/table/games/${request.game}.js`)).default;
const answers = request.cases.map(({ view, payload }) => ({
  sentences: view.last ? drawer.sentences(view, view.last) : [],
  describe: drawer.describe(payload),
}));
process.stdout.write(JSON.stringify(answers));
