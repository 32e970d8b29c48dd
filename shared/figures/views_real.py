"""One view per figure of notebooks 07 to 09 (the real models), each drawing the scene its ``measure`` computes.

The views follow the pattern of :mod:`shared.figures.views_toys`; their scenes are those of
:mod:`shared.figures.scenes_real`. The base class, the style and the fast redraw are in
:mod:`shared.figures.engine`.
"""

from __future__ import annotations

import numpy as np

from . import scenes_real as scenes
from .engine import BLUE, DARK_BLUE, DARK_RED, GREEN, GREY, INK, ORANGE, RED, View, decade_below, nice_limit
from .scenes_common import COSINE_BINS

__all__ = [
    "DecoderLayersView",
    "DecoderView",
    "LayerCurvesView",
    "NormFrequencyView",
    "RealModelView",
    "StaticVectorsView",
]


# --------------------------------------------------------------------------------------------
# 07: a real Transformer
# --------------------------------------------------------------------------------------------


class LayerCurvesView(View):
    """Per-layer meters of the real model (:class:`~shared.real.encoder_study.LayerProfile`): mean cosine
    beside published curves, effective rank, and rank collapse (:func:`~shared.figures.layer_curves_scene`)."""

    measure = staticmethod(scenes.layer_curves_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "all-MiniLM-L6-v2, layer by layer, on the course corpus"

    def _draw(self, scene: scenes.LayerCurvesScene) -> None:
        ax_cos, ax_rank, ax_collapse = self.axes
        for ax in self.axes:
            ax.cla()
        profile, dim = scene.profile, scene.dim
        layers = np.arange(len(profile.mean_cosine))
        depth = layers / layers[-1]
        for (name, values), style in zip(scene.published.items(), ("s--", "^:")):
            ax_cos.plot(np.arange(len(values)) / (len(values) - 1), values, style, color=GREY, ms=4,
                        label=f"{name} (published, Ethayarajh 2019)")
        ax_cos.plot(depth, profile.mean_cosine, "o-", color=RED, lw=2.4, label="MiniLM-L6 (measured here)")
        ax_cos.set_xlim(-0.03, 1.03)
        ax_cos.set_ylim(0, 1)
        ax_cos.set_xlabel("relative depth (layer / number of layers)")
        ax_cos.set_ylabel("mean cosine of tokens from different contexts")
        ax_cos.set_title("Anisotropy across depth")
        ax_cos.legend(loc="upper left")
        n = profile.tokens
        ax_rank.plot(layers, profile.effective_rank, "o-", color=BLUE, lw=2.4, label="MiniLM-L6 tokens")
        ax_rank.axhline(scene.gaussian_rank, color="black", ls=":", lw=1.2,
                        label=f"isotropic Gaussian, same n={n:,} and d={dim}")
        ax_rank.set_ylim(0, dim)
        ax_rank.set_xlabel("layer (0 = embedding layer)")
        ax_rank.set_ylabel("effective rank (participation ratio)")
        ax_rank.set_title("Directions in use")
        ax_rank.legend(loc="center right")
        ax_collapse.fill_between(layers, profile.rank_collapse_q1, profile.rank_collapse_q3, color=GREEN,
                                 alpha=0.25, label="middle half of sentences")
        ax_collapse.plot(layers, profile.rank_collapse, "o-", color=GREEN, lw=2.4, label="median sentence")
        ax_collapse.axhline(profile.rank_collapse_gaussian, color="black", ls=":", lw=1.2,
                            label="Gaussian sentences, same lengths")
        ax_collapse.set_ylim(0, 1)
        ax_collapse.set_xlabel("layer (0 = embedding layer)")
        ax_collapse.set_ylabel("‖X − best rank-1‖ / ‖X‖ (0 = collapsed)")
        ax_collapse.set_title("Tokens of one sentence: partial contraction")
        ax_collapse.legend(loc="lower left")
        for ax in (ax_rank, ax_collapse):
            ax.set_xticks(layers)


class NormFrequencyView(View):
    """Vector norm against word frequency (:class:`~shared.real.frequency.NormFrequency`): static input
    embeddings, and contextual vectors at a few ``layers`` (:func:`~shared.figures.norm_frequency_scene`)."""

    measure = staticmethod(scenes.norm_frequency_scene)
    FIGSIZE, NCOLS, TITLE = (14.0, 5.0), 2, "Norm against word frequency in a real model"

    def _draw(self, scene: scenes.NormFrequencyScene) -> None:
        ax_vocab, ax_ctx = self.axes
        for ax in self.axes:
            ax.cla()
        centres, vocab, ctx = scene.centres, scene.data.vocabulary, scene.data.context
        ax_vocab.scatter(vocab.zipf, vocab.norm, s=3, alpha=0.15, color=BLUE, edgecolors="none",
                         label=f"{len(vocab.zipf):,} vocabulary words")
        ax_vocab.plot(centres, vocab.median[0], "o-", color=INK, lw=2.4, label="median per frequency bin")
        ax_vocab.set_xlabel("word frequency (Zipf scale: 3 = once per million words)")
        ax_vocab.set_ylabel("input embedding norm")
        ax_vocab.set_title(f"Static embeddings: Spearman ρ = {vocab.spearman[0]:+.2f}")
        ax_vocab.legend(loc="upper left")
        import matplotlib as mpl  # here, not at import: a stored picture needs no matplotlib

        colors = mpl.colormaps["viridis"](np.linspace(0.1, 0.85, len(scene.layers)))
        for layer, color in zip(scene.layers, colors):
            ax_ctx.plot(centres, ctx.median[layer], "o-", color=color, lw=2.2,
                        label=f"layer {layer}: ρ = {ctx.spearman[layer]:+.2f}")
        ax_ctx.set_xlabel("word frequency (Zipf scale)")
        ax_ctx.set_ylabel("median hidden-state norm")
        ax_ctx.set_title(f"In context ({len(ctx.zipf):,} corpus words)")
        ax_ctx.legend(loc="lower left")
        for ax in self.axes:
            ax.set_xlim(0.8, 8.2)


class RealModelView(View):
    """One layer and remedy of the real model (:class:`~shared.real.encoder_study.RealPoint`): the cosine
    distribution of held-out token pairs from different sentences, and the cosines of paraphrase
    pairs, unrelated pairs and traps among the held-out sentences
    (:func:`~shared.figures.sentence_pairs_scene`)."""

    measure = staticmethod(scenes.sentence_pairs_scene)
    FIGSIZE, NCOLS, TITLE = (13.5, 5.0), 2, "A real Transformer: one layer, one remedy, held-out data"
    BINS = np.linspace(-1.0, 1.0, 81)
    # Fixed scales (they hold every layer and remedy of the course corpus), so that settings can be
    # compared by eye and a move redraws only the bars; a taller histogram widens the scale.
    TOKEN_TOP, SENTENCE_TOP = 12.0, 0.6

    def _build(self, scene: scenes.SentencePairsScene) -> None:
        ax_tok, ax_sent = self.axes
        zero = np.zeros(len(self.BINS) - 1)
        self.token_hist = ax_tok.stairs(zero, self.BINS, fill=True, alpha=0.6, color=RED)
        self.token_mean = ax_tok.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        ax_tok.axvline(0, color="black", ls=":", lw=1)
        ax_tok.set_xlim(-1, 1)
        ax_tok.set_ylim(0, 8)
        ax_tok.set_xlabel("cosine of two tokens from different sentences")
        ax_tok.set_ylabel("density")
        ax_tok.set_title("Token pairs from different sentences (held-out half)")
        zero = np.zeros(len(scene.bins) - 1)
        self.unrelated = ax_sent.stairs(zero, scene.bins, fill=True, alpha=0.5, color=GREY)
        self.paraphrase = ax_sent.stairs(zero, scene.bins, fill=True, alpha=0.6, color=GREEN)
        self.traps = ax_sent.stairs(zero, scene.bins, color=ORANGE, lw=2.2)
        ax_sent.set_xlim(-1, 1)
        ax_sent.set_ylim(0, 1)
        ax_sent.set_xlabel("cosine of two sentence vectors")
        ax_sent.set_ylabel("share of pairs")
        ax_sent.set_title("Sentence pairs (held-out half)")
        self.moving = [self.token_hist, self.token_mean, self.unrelated, self.paraphrase, self.traps]

    def _draw(self, scene: scenes.SentencePairsScene) -> None:
        ax_tok, ax_sent = self.axes
        point = scene.point
        self.token_hist.set_data(point.token_hist)
        self.token_mean.set_xdata([point.mean_cosine] * 2)
        self.token_hist.set_label(f"layer {point.layer}, {point.remedy}")
        self.token_mean.set_label(f"mean = {point.mean_cosine:+.3f}")
        ax_tok.legend(loc="upper left")
        ax_tok.set_ylim(0, max(self.TOKEN_TOP, nice_limit(1.05 * point.token_hist.max())))
        for stairs, name in [(self.unrelated, "unrelated pairs"), (self.paraphrase, "paraphrase pairs"),
                             (self.traps, "traps")]:
            share, count, mean = scene.share[name]
            stairs.set_data(share)
            stairs.set_label(f"{name} ({count}), mean {mean:+.2f}")
        self.paraphrase.set_label(self.paraphrase.get_label() + f", AUC {point.check.auc:.3f}")
        self.traps.set_label(self.traps.get_label() + f"; paraphrases win {point.check.trap_auc:.3f}")
        top = max(np.nanmax(share) for share, _, _ in scene.share.values())
        ax_sent.set_ylim(0, max(self.SENTENCE_TOP, nice_limit(1.05 * top)))
        ax_sent.legend(loc="upper left")


# --------------------------------------------------------------------------------------------
# 08: static word vectors
# --------------------------------------------------------------------------------------------


class StaticVectorsView(View):
    """All-but-the-top on a set of word vectors, one setting ``D`` at a time
    (:func:`~shared.figures.static_vectors_scene`).

    Built from the arrays of a sweep the notebook holds: the covariance spectrum and random-pair
    cosines of the unprocessed vectors (``eigs_before``, ``cosines_before``), the same for every
    number of removed directions ``D = 0, 1, ...`` (rows of ``eigs`` and ``cosines``), and
    partition isotropy for every ``D`` by the course's estimator (``isotropy``) and by the original
    one, without rescaling (``isotropy_original``). ``published`` is a reference value drawn as a
    line (Mu & Viswanath's "after", say). Three panels: both spectra (directions emptied by the
    remedy have no variance and leave the log axis), both cosine histograms, and both isotropy
    curves with ``D`` marked. Every scale is set from the whole sweep, so moving ``D`` only redraws.
    """

    measure = staticmethod(scenes.static_vectors_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "All-but-the-top on static word vectors (Mu & Viswanath 2018)"

    def _build(self, scene: scenes.StaticVectorsScene) -> None:
        ax_spec, ax_cos, ax_iso = self.axes
        d = len(scene.before)
        rank = np.arange(1, d + 1)
        self.spec_before, = ax_spec.plot(rank, np.ones(d), "o-", color=RED, ms=3.5, label="unprocessed")
        self.spec_after, = ax_spec.plot(rank, np.ones(d), "s-", color=BLUE, ms=3.5, label="after")
        ax_spec.set_yscale("log")
        ax_spec.set_xlim(0, d + 1)
        ax_spec.set_xlabel("eigenvalue rank")
        ax_spec.set_ylabel("variance along the direction (log)")
        ax_spec.set_title("Covariance spectrum")
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hist_before = ax_cos.stairs(zero, COSINE_BINS, fill=True, alpha=0.45, color=RED)
        self.hist_after = ax_cos.stairs(zero, COSINE_BINS, fill=True, alpha=0.45, color=BLUE)
        self.mean_before = ax_cos.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        self.mean_after = ax_cos.axvline(0, color=DARK_BLUE, ls="--", lw=1.8)
        ax_cos.axvline(0, color="black", ls=":", lw=1)
        ax_cos.set_xlim(-1, 1)
        ax_cos.set_xlabel("cosine similarity of a random pair")
        ax_cos.set_ylabel("density")
        ax_cos.set_title("Random-pair cosine")
        self.curve, = ax_iso.plot([], [], "o-", color=BLUE, ms=4, lw=2.2, label="course (rescaled)")
        self.curve_original, = ax_iso.plot([], [], "s-", color=GREEN, ms=4, lw=2.2, label="original (no rescaling)")
        self.marks = [ax_iso.plot([], [], "o", ms=13, mfc="none", mec=color, mew=2.5)[0] for color in (BLUE, GREEN)]
        self.published = ax_iso.axhline(0, color=GREY, ls="--", lw=1.4, label="published")
        ax_iso.set_ylim(0, 1)
        ax_iso.set_xlabel("D: top principal directions removed (0 = centring only)")
        ax_iso.set_ylabel("partition isotropy (1 = isotropic)")
        ax_iso.set_title("Partition isotropy against D")
        self.moving = [self.spec_before, self.spec_after, self.hist_before, self.hist_after, self.mean_before,
                       self.mean_after, self.curve, self.curve_original, *self.marks, self.published]

    def _draw(self, scene: scenes.StaticVectorsScene) -> None:
        ax_spec, ax_cos, ax_iso = self.axes
        D, published = scene.D, scene.published
        self.spec_before.set_ydata(scene.before)
        self.spec_after.set_ydata(scene.after)
        self.spec_after.set_label(f"after D = {D}")
        ax_spec.legend(loc="upper right")
        low, high = scene.spectrum_range
        ax_spec.set_ylim(decade_below(low), nice_limit(2.0 * high))
        self.hist_before.set_data(scene.density_before)
        self.hist_after.set_data(scene.density_after)
        self.mean_before.set_xdata([scene.mean_before] * 2)
        self.mean_after.set_xdata([scene.mean_after] * 2)
        self.hist_before.set_label(f"unprocessed, mean {scene.mean_before:+.3f}")
        self.hist_after.set_label(f"after D = {D}, mean {scene.mean_after:+.3f}")
        ax_cos.set_ylim(0, nice_limit(1.05 * scene.density_top))
        ax_cos.legend(loc="upper left")
        steps = np.arange(len(scene.isotropy))
        self.curve.set_data(steps, scene.isotropy)
        self.curve_original.set_data(steps, scene.isotropy_original)
        for mark, values in zip(self.marks, (scene.isotropy, scene.isotropy_original)):
            mark.set_data([D], [values[D]])
        self.published.set_visible(published is not None)
        if published is not None:
            self.published.set_ydata([published] * 2)
            self.published.set_label(f"published: {published:g}")
        ax_iso.set_xlim(-0.5, len(steps) - 0.5)
        ax_iso.set_xticks(steps)
        ax_iso.legend(handles=[self.curve, self.curve_original] + ([self.published] if published is not None else []),
                      loc="upper left")


# --------------------------------------------------------------------------------------------
# 09: a decoder LLM (self-contained: draws only the arrays of shared.real.decoder_study's results)
# --------------------------------------------------------------------------------------------


class DecoderLayersView(View):
    """SmolLM2 layer by layer (:class:`~shared.real.decoder_study.DecoderProfile`) beside MiniLM on the same
    sentences (:class:`~shared.real.decoder_study.EncoderSide`): the cross-sentence mean cosine (all
    tokens, first tokens left out, massive coordinates deleted too), the largest entry as a multiple
    of the median entry, and the attention every head gives the first token
    (:func:`~shared.figures.decoder_layers_scene`)."""

    measure = staticmethod(scenes.decoder_layers_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "SmolLM2-135M layer by layer, on the course corpus"

    def _draw(self, scene: scenes.DecoderLayersScene) -> None:
        ax_cos, ax_big, ax_att = self.axes
        for ax in self.axes:
            ax.cla()
        profile, side, depth = scene.profile, scene.side, scene.depth
        layers = np.arange(len(profile.mean_cosine))
        ax_cos.plot(depth, profile.mean_cosine, "o-", color=RED, lw=2.4, ms=4, label="SmolLM2, all tokens")
        ax_cos.plot(depth, profile.mean_cosine_rest, "s--", color=ORANGE, lw=1.6, ms=3,
                    label="SmolLM2, first token left out")
        ax_cos.plot(depth, profile.mean_cosine_trimmed, "^-", color=GREEN, lw=2.0, ms=4,
                    label=f"... and the {len(profile.massive)} massive coordinates deleted")
        ax_cos.plot(scene.encoder_depth, side.mean_cosine, "D:", color=BLUE, lw=2.0, ms=5,
                    label="MiniLM-L6, same sentences")
        ax_cos.axhline(0, color="black", ls=":", lw=1)
        ax_cos.set_xlim(-0.03, 1.03)
        ax_cos.set_ylim(-0.05, 1)
        ax_cos.set_xlabel("relative depth (layer / number of layers)")
        ax_cos.set_ylabel("mean cosine of tokens from different sentences")
        ax_cos.set_title("The cone, and what carries it")
        ax_cos.legend(loc="upper right")
        ax_big.semilogy(layers, profile.largest, "o-", color=RED, lw=2.4, ms=4, label="first token of a sentence")
        ax_big.semilogy(layers, profile.largest_rest, "s-", color=GREY, lw=1.8, ms=3, label="every other token")
        ax_big.axhline(100, color="black", ls=":", lw=1.2, label="100 × median (massive)")
        ax_big.set_xlabel("layer (0 = token embeddings)")
        ax_big.set_ylabel("largest |entry| / median |entry| of the layer")
        ax_big.set_title("Massive activations")
        ax_big.legend(loc="lower right")
        blocks = layers[1:]
        ax_att.bar(blocks, profile.first_attention, color=RED, alpha=0.75, label="attention to the first token")
        ax_att.axhline(profile.uniform_first, color="black", ls=":", lw=1.2,
                       label=f"attention spread evenly ({profile.uniform_first:.3f})")
        ax_att.set_ylim(0, 1)
        ax_att.set_xlabel("block")
        ax_att.set_ylabel("mean weight on the first token (queries at position ≥ 2)")
        ax_att.set_title("An attention sink")
        ax_att.legend(loc="upper left")


class DecoderView(View):
    """One layer of SmolLM2 with something left out (:class:`~shared.real.decoder_study.DecoderPoint`): the
    cosines of token pairs from different sentences, and the coordinates that carry their mean
    (:func:`~shared.figures.decoder_scene`)."""

    measure = staticmethod(scenes.decoder_scene)
    FIGSIZE, NCOLS, TITLE = (13.5, 5.0), 2, "SmolLM2-135M: one layer, something left out"
    BINS = np.linspace(-1.0, 1.0, 81)
    TOP = 8  # coordinates shown
    # Fixed scales (they hold every layer and setting of the course corpus), so that settings compare
    # by eye and a move redraws only the bars; a taller histogram or a larger term widens the scale.
    HIST_TOP, TERM_TOP = 8.0, 0.8

    def _build(self, scene: scenes.DecoderScene) -> None:
        ax_hist, ax_terms = self.axes
        self.hist = ax_hist.stairs(np.zeros(len(self.BINS) - 1), self.BINS, fill=True, alpha=0.6, color=RED)
        self.mean = ax_hist.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        ax_hist.axvline(0, color="black", ls=":", lw=1)
        ax_hist.set_xlim(-1, 1)
        ax_hist.set_ylim(0, self.HIST_TOP)
        ax_hist.set_xlabel("cosine of two tokens from different sentences")
        ax_hist.set_ylabel("density")
        ax_hist.set_title("Token pairs from different sentences")
        self.bars = ax_terms.bar(np.arange(self.TOP), np.zeros(self.TOP), color=BLUE, alpha=0.8)
        ax_terms.set_xticks(np.arange(self.TOP))
        ax_terms.set_ylim(0, self.TERM_TOP)
        ax_terms.set_xlabel("the eight largest terms (the coordinate is above its bar)")
        ax_terms.set_ylabel("its term in the mean cosine")
        ax_terms.set_title("Which coordinates carry the mean cosine")
        self.labels = [ax_terms.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in range(self.TOP)]
        self.moving = [self.hist, self.mean, *self.bars, *self.labels]

    def _draw(self, scene: scenes.DecoderScene) -> None:
        ax_hist, ax_terms = self.axes
        point = scene.point
        self.hist.set_data(point.hist)
        self.mean.set_xdata([point.mean_cosine] * 2)
        self.hist.set_label(f"layer {point.layer}, left out: {point.leave_out}")
        self.mean.set_label(f"mean = {point.mean_cosine:+.3f} (all pairs)")
        ax_hist.legend(loc="upper left")
        ax_hist.set_ylim(0, max(self.HIST_TOP, nice_limit(1.05 * point.hist.max())))
        for bar, label, coord, term in zip(self.bars, self.labels, point.top, point.top_terms):
            bar.set_height(max(term, 0.0))
            label.set_position((bar.get_x() + bar.get_width() / 2, max(term, 0.0)))
            label.set_text(str(int(coord)))
        ax_terms.set_ylim(0, max(self.TERM_TOP, nice_limit(1.1 * max(float(point.top_terms.max()), 1e-6))))
