"""Toy versions of mechanisms proposed as causes of anisotropy, and their runs, one module per mechanism.

Self-attention as averaging (notebook 03), a frequency pull on norms and a language model trained
by likelihood (notebook 04), and a rich-get-richer loop on a spectrum (notebook 05). Each notebook
measures what its toy produces with notebook 01's meter table, against a same-size Gaussian and
the toy with the mechanism switched off.

* :mod:`~shared.mechanisms.attention`: attention as averaging, on one sequence or many (notebook 03);
* :mod:`~shared.mechanisms.frequency`: Zipf frequencies, the frequency pull, the bigram language,
  its gradients and the frequency bands (notebook 04);
* :mod:`~shared.mechanisms.degeneration`: the tiny language model trained on it, its band cosines
  and the lifetime of its rare cone (notebook 04);
* :mod:`~shared.mechanisms.richer`: the rich-get-richer loop and LayerNorm (notebook 05);
* :mod:`~shared.mechanisms.optimizer`: whether Adam gives the embeddings an outlier coordinate (notebook 05).
"""

from .attention import (
    AttentionRun,
    SequencesRun,
    angular_std,
    attention_run,
    attention_seeds,
    attention_sequences,
    attention_step,
    sinusoidal_positions,
    softmax_rows,
)
from .frequency import (
    FREQUENCY_BANDS,
    LMGradients,
    band_rows,
    bigram_language,
    frequency_pull,
    lm_gradients,
    logit_gradient,
    zipf_frequencies,
)
from .degeneration import (
    Optimizer,
    ADAM_BETAS,
    ADAM_EPS,
    CONE_LIFETIME_FILE,
    CONE_LIFETIME_GRID,
    CORPUS_MAX,
    LIFETIME_TIMES,
    BandCosines,
    ConeLifetime,
    DegenerationRun,
    band_cosines,
    cone_lifetime,
    cone_lifetime_grid,
    degeneration_grid,
    degeneration_run,
    degeneration_runs,
    stored_cone_lifetimes,
)
from .richer import (
    VectorLoop,
    layer_norm,
    loop_cone_cosine,
    rich_get_richer_run,
    rich_get_richer_step,
    rich_get_richer_vectors,
)
from .optimizer import OptimizerShares, coordinate_share, optimizer_shares, optimizer_shares_by_length

__all__ = [
    "Optimizer",
    "ADAM_BETAS",
    "ADAM_EPS",
    "AttentionRun",
    "BandCosines",
    "CONE_LIFETIME_FILE",
    "CONE_LIFETIME_GRID",
    "CORPUS_MAX",
    "ConeLifetime",
    "DegenerationRun",
    "FREQUENCY_BANDS",
    "LIFETIME_TIMES",
    "LMGradients",
    "OptimizerShares",
    "SequencesRun",
    "VectorLoop",
    "angular_std",
    "attention_run",
    "attention_seeds",
    "attention_sequences",
    "attention_step",
    "band_cosines",
    "band_rows",
    "bigram_language",
    "cone_lifetime",
    "cone_lifetime_grid",
    "coordinate_share",
    "degeneration_grid",
    "degeneration_run",
    "degeneration_runs",
    "frequency_pull",
    "layer_norm",
    "lm_gradients",
    "logit_gradient",
    "loop_cone_cosine",
    "optimizer_shares",
    "optimizer_shares_by_length",
    "rich_get_richer_run",
    "rich_get_richer_step",
    "rich_get_richer_vectors",
    "sinusoidal_positions",
    "softmax_rows",
    "stored_cone_lifetimes",
    "zipf_frequencies",
]
