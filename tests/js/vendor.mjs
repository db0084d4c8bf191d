/* Loaded with `node --import` before the tablet's tests: see vendor-hooks.mjs. */
import { register } from "node:module";

register("./vendor-hooks.mjs", import.meta.url);
