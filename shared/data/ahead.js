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
    model.on("msg:custom", (msg, buffers) => {
      frames.delete(msg.key);
      frames.set(msg.key, { picture: buffers[0], readout: msg.readout });
      while (frames.size > KEEP) frames.delete(frames.keys().next().value);
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
    const show = () => {
      const shown = key(), frame = held();
      // before the slider's own message: the kernel then knows whether to send this setting's picture
      model.send({ shows: shown, held: frame !== undefined });
      if (frame === undefined) return;
      image.set("value", frame.picture);
      readout.set("value", frame.readout);
      globalThis.courseAheadShown = (globalThis.courseAheadShown ?? 0) + 1; // read by the browser tests
    };
    // A picture or readings from the kernel that come after the page showed its own (the kernel's
    // answer to an earlier move, or to another window): the page's, of the current setting, stay.
    const mend = () => {
      const frame = held();
      if (frame === undefined) return;
      if (image.get("value") !== frame.picture) image.set("value", frame.picture);
      if (readout.get("value") !== frame.readout) readout.set("value", frame.readout);
    };
    image.on("change:value", mend);
    readout.on("change:value", mend);
    controls.forEach((control, i) => control.on(axes[i] === null ? "change:index" : "change:value", show));
    model.send({ ready: true }); // this page holds nothing yet: the kernel sends what it drew ahead
  },
  render() {}, // nothing to see: it only swaps the explorer's picture
};
