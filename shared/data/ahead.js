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

function notch(model, axis) {
  return axis === null ? model.get("index") : Math.round((model.get("value") - axis[0]) / axis[1]);
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
    const key = () => controls.map((control, i) => notch(control, axes[i])).join(",");
    const show = () => {
      const shown = key(), frame = frames.get(shown);
      // before the slider's own message: the kernel then knows whether to send this setting's picture
      model.send({ shows: shown, held: frame !== undefined });
      if (frame === undefined) return;
      image.set("value", frame.picture);
      readout.set("value", frame.readout);
      globalThis.courseAheadShown = (globalThis.courseAheadShown ?? 0) + 1; // read by the browser tests
    };
    controls.forEach((control, i) => control.on(axes[i] === null ? "change:index" : "change:value", show));
    model.send({ ready: true }); // this page holds nothing yet: the kernel sends what it drew ahead
  },
  render() {}, // nothing to see: it only swaps the explorer's picture
};
