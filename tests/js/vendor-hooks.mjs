/* Node's module resolution for the tablet's modules under test: an import of what the site
   serves from node_modules (settings.VENDOR_STATIC: /static/vendor/<package>/...) is found where
   the browser's request would be answered from. The folders come from test_js_modules.py in
   KORTOS_VENDOR ({"<folder under static/>": "<absolute folder>"}), read from the settings. */
import { pathToFileURL } from "node:url";

const ROOT = new URL("../../", import.meta.url);
const FOLDERS = Object.entries(JSON.parse(process.env.KORTOS_VENDOR || "{}")).map(([served, real]) => [
  new URL(`static/${served}/`, ROOT).href, pathToFileURL(real + "/").href]);

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL && (specifier.startsWith(".") || specifier.startsWith("/"))) {
    const asked = new URL(specifier, context.parentURL).href;
    for (const [served, real] of FOLDERS) {
      if (asked.startsWith(served)) return nextResolve(real + asked.slice(served.length), context);
    }
  }
  return nextResolve(specifier, context);
}
