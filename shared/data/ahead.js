// Pictures a live explorer drew ahead (shared/explorers.py, class Ahead).
// After each move the kernel draws the settings one notch away on each slider and sends them here
// (a custom message: the setting's key and readings, the picture as a buffer). When the learner
// moves a slider to one of them, this shows its picture and readings at once, from the page, before
// the kernel has heard of the move, and tells the kernel (before the slider's own message) that it
// holds it, so the kernel sends nothing back. Any other move waits for the kernel, as before. A page
// (each window showing the notebook) says when it is ready, and the kernel then sends it what it drew
// ahead of the current setting. A setting's key numbers each slider's notch (a choice: its index; a
// slider: round((value - low) / step)), the same in the kernel (Explorer._key).
const KEEP = 32; // settings held, the oldest forgotten first (the kernel counts the same way)

const GRID = 1e-9; // how far (in steps) a value may lie from its slider's grid (explorers.py, GRID)

function notch(model, axis) {
  if (axis === null) return model.get("index");
  const steps = (model.get("value") - axis[0]) / axis[1], n = Math.round(steps);
  return Math.abs(steps - n) <= GRID ? n : null; // off the grid (set by code): no notch, nothing held
}

export default {
  async initialize({ model }) {
    const frames = new Map();
    const forget = (frame) => URL.revokeObjectURL(frame.url);
    model.on("msg:custom", (msg, buffers) => {
      // decoded now, while the learner looks: shown, it is only painted
      const url = URL.createObjectURL(new Blob([buffers[0]], { type: "image/jpeg" }));
      const picture = new Image();
      picture.src = url;
      picture.decode().catch(() => {});
      if (frames.has(msg.key)) forget(frames.get(msg.key));
      frames.delete(msg.key);
      frames.set(msg.key, { picture: buffers[0], readout: msg.readout, url, img: picture });
      while (frames.size > KEEP) {
        const oldest = frames.keys().next().value;
        forget(frames.get(oldest));
        frames.delete(oldest);
      }
    });
    const manager = model.widget_manager;
    const [controls, image, readout] = await Promise.all([
      Promise.all(model.get("controls").map((id) => manager.get_model(id))),
      manager.get_model(model.get("image")),
      manager.get_model(model.get("readout")),
    ]);
    const axes = model.get("axes");
    const key = () => {
      const notches = controls.map((control, i) => notch(control, axes[i]));
      return notches.includes(null) ? null : notches.join(",");
    };
    const held = () => { const k = key(); return k === null ? undefined : frames.get(k); };
    // A held picture is shown in an image of this page's own, decoded already, in place of each view
    // of the explorer's picture (hidden meanwhile; a picture it would decode is no longer painted);
    // the model takes the picture's bytes without redrawing its views.
    const shown = new Map(); // view -> this page's image shown in its place
    const cover = (frame) => {
      image.set("value", frame.picture, { silent: true });
      const setting = key();
      for (const pending of Object.values(image.views ?? {})) {
        pending.then((view) => {
          if (key() !== setting || held() === undefined) return; // moved on meanwhile
          const current = held();
          if (!view.el.parentNode) { // not in the page yet (shown again): it draws the model's picture
            view.update();
            return;
          }
          const before = shown.get(view);
          before?.remove();
          // one image per view: a second view of the picture (the explorer shown twice) gets a copy
          const mine = current.img.parentNode ? current.img.cloneNode() : current.img;
          mine.style.cssText = view.el.style.display !== "none" ? view.el.style.cssText : before?.style.cssText ?? "";
          mine.className = view.el.className;
          view.el.style.display = "none";
          view.el.after(mine);
          if (before === undefined) view.once("remove", () => { shown.get(view)?.remove(); shown.delete(view); });
          shown.set(view, mine);
        });
      }
    };
    const uncover = () => {
      for (const [view, mine] of shown) {
        mine.remove();
        view.el.style.display = "";
      }
      shown.clear();
    };
    const show = () => {
      const frame = held();
      // before the slider's own message: the kernel then knows whether to send this setting's picture
      model.send({ shows: key(), held: frame !== undefined });
      if (frame === undefined) return;
      cover(frame);
      readout.set("value", frame.readout);
      globalThis.courseAheadShown = (globalThis.courseAheadShown ?? 0) + 1; // read by the browser tests
    };
    // A picture or readings from the kernel: where the page holds the current setting (the kernel's
    // answer came to an earlier move, or to another window), the page's stay; otherwise the kernel's
    // picture is the one shown.
    const fromKernel = () => {
      const frame = held();
      if (frame === undefined) uncover();
      else cover(frame);
    };
    const keepReadings = () => {
      const frame = held();
      if (frame !== undefined && readout.get("value") !== frame.readout) readout.set("value", frame.readout);
    };
    const moved = controls.map((_, i) => (axes[i] === null ? "change:index" : "change:value"));
    image.on("change:value", fromKernel);
    readout.on("change:value", keepReadings);
    controls.forEach((control, i) => control.on(moved[i], show));
    model.send({ ready: true }); // this page holds nothing yet: the kernel sends what it drew ahead
    return () => { // the explorer is gone (its cell run again, the kernel restarted): let go of everything
      image.off("change:value", fromKernel);
      readout.off("change:value", keepReadings);
      controls.forEach((control, i) => control.off(moved[i], show));
      uncover();
      frames.forEach(forget);
      frames.clear();
    };
  },
  render() {}, // nothing to see: it only swaps the explorer's picture
};
