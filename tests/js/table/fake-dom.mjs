/* A very small DOM for the Node tests of static/js/table/: elements with children, text,
   attributes and dataset, enough for status.js to write into. The forms and the dialog are
   tested in real Chromium (tests/browser/test_table_modules.py). */

class Node {
  constructor(doc) { this.ownerDocument = doc; this.parentNode = null; }
}

class Text extends Node {
  constructor(doc, data) { super(doc); this.data = String(data); }
  get textContent() { return this.data; }
}

class Element extends Node {
  constructor(doc, tagName) {
    super(doc);
    this.tagName = tagName.toUpperCase();
    this.childNodes = [];
    this.attributes = new Map();
    this.dataset = {};
    this.className = "";
  }
  append(...nodes) {
    for (const node of nodes) {
      const child = typeof node === "string" ? new Text(this.ownerDocument, node) : node;
      child.parentNode = this;
      this.childNodes.push(child);
    }
  }
  replaceChildren(...nodes) { this.childNodes = []; this.append(...nodes); }
  setAttribute(name, value) { this.attributes.set(name, String(value)); }
  getAttribute(name) { return this.attributes.has(name) ? this.attributes.get(name) : null; }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(""); }
  set textContent(value) { this.replaceChildren(new Text(this.ownerDocument, value)); }
  /** Every descendant element with this tag name, in document order. */
  byTag(tag) {
    const found = [];
    for (const child of this.childNodes) {
      if (!(child instanceof Element)) continue;
      if (child.tagName === tag.toUpperCase()) found.push(child);
      found.push(...child.byTag(tag));
    }
    return found;
  }
}

export class FakeDocument {
  createElement(tag) { return new Element(this, tag); }
  createTextNode(data) { return new Text(this, data); }
}
