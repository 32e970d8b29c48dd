# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: -all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · Frequency-induced collapse: frequent tokens pinned to the centre
#
# **Question.** If frequent tokens are pulled toward the centre more often than rare ones, what
# happens to their norms, and how does that show up in the geometry of the whole vocabulary?
#
# **Time:** about 15 minutes. **After this notebook you can** generate Zipfian token frequencies,
# apply a frequency-dependent pull, and read the resulting norm–frequency relation.
#
# **Theory:** [§4.2 Token frequency](../research/03-isotropy-anisotropy.md#42-token-frequency).

# %%
import inspect

import numpy as np

from shared import frequency_pull, make_isotropic, partition_isotropy, zipf_frequencies
from shared.exercises import check
from shared.explorers import explore, slider
from shared.figures import FrequencyView

# %% [markdown]
# ## The mechanism
#
# Word frequencies follow Zipf's law: the token of rank $r$ has probability proportional to
# $r^{-s}$ with $s \approx 1$. During training a token's embedding is updated whenever the token
# occurs, so frequent tokens receive many more updates. This toy replaces all of training by one
# frequency-dependent shrink toward the origin (the square root saturates the pull for the most
# frequent tokens):

# %%
print(inspect.getsource(frequency_pull))

# %% [markdown]
# We give 1,200 tokens isotropic 50-dimensional embeddings (seed 4) and Zipf frequencies with
# $s = 1$, and apply the pull with strength $\gamma = 0.9$.
#
# **Predict first.** An isotropic 50-d Gaussian vector has norm about $\sqrt{50} \approx 7.1$.
# What norm will the most frequent token keep?

# %%
freq = zipf_frequencies(1200, exponent=1.0)  # token 0 is the most frequent
emb = frequency_pull(make_isotropic(1200, 50, rng=4), freq, gamma=0.9)
norms = np.linalg.norm(emb, axis=1)
print(f"most frequent token : norm = {norms[0]:.2f}")
print(f"least frequent token: norm = {norms[-1]:.2f}")
print(f"partition isotropy of the embedding matrix = {partition_isotropy(emb):.3f}")

# %%
FrequencyView(freq, emb)

# %% [markdown]
# **What you see.** The most frequent token keeps a norm of 0.72, the least frequent 6.31: norm
# rises steadily with frequency rank (left). In the PCA picture (right) the bright, frequent tokens
# sit in a tight knot at the centre, and the dark, rare ones spread out around them.
#
# **Why.** The pull multiplies token $t$ by $1 - 0.9\sqrt{f_t/f_{\max}}$: 0.1 for the most frequent
# token, close to 1 for the rare tail. Frequent tokens lose most of their norm and their room to
# vary; rare ones keep their random start.
#
# **The partition isotropy, 0.637.** This is the course's well-defined value. An estimator that
# evaluates $Z(c)$ only along the eigenvectors as LAPACK returns them, and not along their
# negatives, would print a slightly higher number that changes with the arbitrary signs LAPACK
# picks, because $Z(c) \ne Z(-c)$ for any real cloud; taking both signs gives the true worst ratio
# over those directions. The value is below the isotropic cloud's 0.690 of notebook 01,
# but not by much: the pull shrinks tokens radially and leaves their directions random, and a
# meter built on a global offset barely notices.
#
# **Takeaway.** A frequency-dependent pull stamps the frequency distribution into the geometry as
# a norm gradient: a dense core of frequent tokens and a wide halo of rare ones. This echoes the
# frequency bias measured in real models (Gao et al. 2019; Li et al. 2020), but it is a caricature:
# it assumes frequent tokens end up *small*, and real models need not agree on that sign.
# Partition isotropy hardly registers the effect, which is worth remembering.
#
# ## Explorer

# %%
def pulled(exponent: float, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Zipf frequencies with this exponent, and the same 1,200 isotropic tokens after the pull."""
    freq = zipf_frequencies(1200, exponent)
    return freq, frequency_pull(make_isotropic(1200, 50, rng=4), freq, gamma)


# Each move: pulled (above) computes; FrequencyView draws norms and the PCA picture.
explore(pulled, FrequencyView, title="Explorer: frequency pull",
        exponent=slider("s: Zipf exponent", 1.0, 0.0, 2.0, 0.05),
        gamma=slider("γ: pull strength", 0.9, 0.0, 0.99, 0.01))

# %% [markdown]
# **Try this.**
# 1. Set the Zipf exponent to 0 (every token equally frequent). What happens to the norm curve,
#    and why?
# 2. Set the pull strength to 0. Which picture changes and which meter does not move much? What
#    does that tell you about partition isotropy?
# 3. Raise the exponent to 2. Fewer tokens are frequent: how many keep a small norm?

# %% [markdown]
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. Worked solutions are in [SOLUTIONS.md](SOLUTIONS.md); try first.
#
# **04.1 · Predict.** With pull strength $\gamma = 0.9$, by what factor is the embedding of the most frequent token multiplied?

# %%
answer = None  # your number
check("04.1", answer)

# %% [markdown]
# **04.2 · Explain.** Why does partition isotropy barely move under the frequency pull? (a) the pull shrinks tokens radially and leaves their directions random (b) partition isotropy ignores norms (c) the pull is too weak

# %%
answer = None  # one of "a", "b", "c"
check("04.2", answer)

# %% [markdown]
# **Where this leads.** Notebook [05 · Rich-get-richer](05_rich_get_richer.ipynb) shows a third
# route to a cone: a feedback loop in the optimisation itself.
