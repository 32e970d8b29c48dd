// The reveal of a committed prediction (shared/predictions.py, class Reveal).
// In a notebook of JupyterLab or Notebook 7 it hides the cells after its own cell, up to and
// including the first cell tagged "reveal-end" (the model's end_tag), until the learner has committed a guess and asked
// for the answer. The browser remembers the reveal (localStorage, per server, notebook and
// prediction), so a reloaded or reopened notebook shows what was already shown. Where it finds no
// notebook (another front end, a static page) it hides nothing.
const HIDDEN = "course-reveal-hidden";
const VIEWS = (globalThis.__courseRevealViews ??= new Map()); // cell node -> live views on it

function style() {
  if (document.getElementById("course-reveal-style")) return;
  const s = document.createElement("style");
  s.id = "course-reveal-style";
  s.textContent = `.${HIDDEN} { display: none !important; }
.course-reveal { display: flex; gap: 0.8em; align-items: center; margin: 0.3em 0; }
.course-reveal-note { font-style: italic; }`;
  document.head.append(s);
}

function cellIndex(cell, cells) {
  const i = cell.dataset.windowedListIndex;
  return i !== undefined ? Number(i) : cells.indexOf(cell);
}

function render({ model, el }) {
  style();
  const number = model.get("number"), END = model.get("end_tag");
  const context = model.widget_manager?.context; // the notebook's document, in JupyterLab
  const base = location.pathname.replace(/\/(lab|notebooks|doc|tree)(\/.*)?$/, "");
  const key = `course-reveal:${base}:${context?.path ?? ""}:${number}`;
  const box = document.createElement("div");
  box.className = "course-reveal";
  const button = document.createElement("button");
  button.className = "jupyter-button course-reveal-show";
  button.textContent = "Show the answer";
  const note = document.createElement("span");
  note.className = "course-reveal-note";
  box.append(button, note);
  el.append(box);

  let cell = null, container = null, observer = null, hidden = [];
  const shown = () => { try { return localStorage.getItem(key) === "shown"; } catch { return false; } };

  function range() { // the model's indices of the cells to hide, or null
    const cells = context?.model?.cells;
    if (!cell || !cells) return null;
    // With windowing set to "full" only the cells in view are in the page, each with its index.
    const nodes = [...container.querySelectorAll(":scope > .jp-Cell")];
    const own = cellIndex(cell, nodes);
    if (own < 0) return null;
    for (let j = own + 1; j < cells.length; j++) {
      const tags = cells.get(j).getMetadata?.("tags") ?? [];
      if (tags.includes(END)) return { own, end: j, nodes };
    }
    return null;
  }

  function apply() {
    const r = range();
    const hide = r !== null && !shown();
    const now = [];
    if (r !== null) {
      for (const node of r.nodes) {
        const i = cellIndex(node, r.nodes);
        if (i > r.own && i <= r.end) {
          node.classList.toggle(HIDDEN, hide); // also shows what an earlier view of this cell hid
          if (hide) now.push(node);
        }
      }
    }
    for (const node of hidden) if (!now.includes(node)) node.classList.remove(HIDDEN);
    hidden = now;
    const committed = model.get("committed");
    button.style.display = hide ? "" : "none";
    button.disabled = !committed;
    note.textContent = !hide ? "" : committed
      ? "Committed. Show the answer when your teacher says so, or now if you work alone."
      : `The next ${r.end - r.own} cells (the answer and what explains it) are hidden until you commit a guess.`;
  }

  button.addEventListener("click", () => {
    try { localStorage.setItem(key, "shown"); } catch { /* no storage: shown for this page only */ }
    model.set("revealed", true);
    model.save_changes();
    apply();
  });
  model.on("change:committed", apply);

  const attach = setInterval(() => { // the view is put in the page after render returns
    const found = el.closest(".jp-Cell");
    if (!found || !found.parentElement) return;
    clearInterval(attach);
    cell = found;
    container = found.parentElement;
    VIEWS.set(cell, (VIEWS.get(cell) ?? 0) + 1);
    observer = new MutationObserver(apply); // cells attached, added or moved
    observer.observe(container, { childList: true });
    apply();
  }, 50);

  return () => {
    clearInterval(attach);
    model.off("change:committed", apply);
    observer?.disconnect();
    if (!cell) return;
    const mine = cell, nodes = hidden;
    VIEWS.set(mine, VIEWS.get(mine) - 1);
    // A cell run again replaces its view: the new one hides the same cells. Show them only if no
    // view is left on the cell (its output cleared), so nothing stays hidden without a button.
    setTimeout(() => {
      if (!VIEWS.get(mine)) for (const node of nodes) node.classList.remove(HIDDEN);
    }, 2000);
  };
}

export default { render };
