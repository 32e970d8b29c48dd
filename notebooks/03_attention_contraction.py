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
# # 03 · Self-attention contraction: stacking layers squeezes a cloud into a cone
#
# **Question.** If every layer replaces each token by a weighted average of all tokens, what do
# forty such layers do to the angles between tokens?
#
# **Time:** about 20 minutes. **After this notebook you can** write a bare self-attention update,
# explain why averaging can only contract a cloud, and say what an off-centre start has to do with
# a cone.
#
# **Theory:** [§4.1 Self-attention as a contraction](../research/03-isotropy-anisotropy.md#41-self-attention-as-a-contraction).

# %%
import inspect

from shared import attention_run, attention_step
from shared.exercises import check
from shared.explorers import explore, slider
from shared.figures import AttentionView

# %% [markdown]
# ## The mechanism
#
# Strip a self-attention layer to its core: queries, keys and values are the tokens themselves,
# the attention weights are a row-wise softmax of the scaled dot products, and a residual
# connection mixes a fraction $\alpha$ of the average into each token:
#
# $$X \leftarrow X + \alpha\,\big(\operatorname{softmax}(\beta X X^\top)\,X - X\big).$$
#
# Each row of the softmax is a set of positive weights summing to 1, so $\operatorname{softmax}(\cdot)X$
# puts every token inside the convex hull of the cloud. This is the toolkit's code, printed from
# its source:

# %%
print(inspect.getsource(attention_step))

# %% [markdown]
# We start from 300 tokens in 2-D: a standard Gaussian shifted by 0.7 along the direction
# $(1, 0.6)/\|(1, 0.6)\|$, then apply 40 layers with $\beta = 0.6$ and $\alpha = 0.09$. After every
# layer we record the mean cosine of 4,000 random pairs and the spread (standard deviation) of
# the tokens' polar angles.
#
# **Predict first.** After 40 layers, will the mean cosine be near 0.3, near 0.7 or near 1?

# %%
run = attention_run(depth=40, beta=0.6, alpha=0.09, offset=0.7)
print(f"after layer  1: mean pairwise cosine = {run.mean_cos[0]:.3f}   angular std = {run.angular_std[0]:.3f} rad")
print(f"after layer 40: mean pairwise cosine = {run.mean_cos[39]:.3f}   angular std = {run.angular_std[39]:.3f} rad")

# %%
AttentionView(run)

# %% [markdown]
# **What you see.** After one layer the tokens still point in all directions (mean cosine 0.270,
# angular spread 1.224 rad, about 70°). By layer 10 (orange) they have bunched up; by layer 40
# (red) they form a tight knot away from the origin, all pointing the same way: mean cosine 0.999,
# angular spread 0.033 rad, about 2°. The right panel shows the two curves crossing: cosine rises
# to 1, angular spread falls to 0.
#
# **Why.** A softmax average lies inside the convex hull of the tokens, so each layer shrinks the
# cloud toward a weighted centre. Because the cloud starts *off* the origin, that centre is not the
# origin: the tokens converge onto one ray, and every cosine tends to 1. With $\beta = 0.6$ the
# weights are almost uniform, so the whole cloud moves as one; Dong, Cordonnier & Loukas (2021)
# prove that pure attention loses rank doubly exponentially with depth, and Geshkovski et al.
# (2023) describe tokens as particles that cluster over depth.
#
# **Takeaway.** Averaging is contractive, and depth compounds it. Real Transformers resist this
# with skip connections, MLPs and LayerNorm, which Dong et al. show counteract the collapse; this
# toy has only a weak residual mix ($\alpha$) and no MLP.
#
# ## Explorer
#
# Change the depth, the sharpness $\beta$ of the softmax, the step size $\alpha$ and the starting
# offset. The left panel shows the cloud at layers 0, depth/4 and depth.

# %%
# Each move of β, α or the offset: attention_run stacks 120 layers; AttentionView draws them up to `depth`
# (so moving the depth only redraws).
explore(lambda beta, alpha, offset: attention_run(120, beta, alpha, offset), AttentionView,
        title="Explorer: self-attention contraction",
        depth=slider("depth: attention layers", 40, 1, 120, 1),
        beta=slider("β: softmax sharpness", 0.6, 0.0, 5.0, 0.1),
        alpha=slider("α: step size (residual mix)", 0.09, 0.0, 1.0, 0.01),
        offset=slider("offset: start distance from origin", 0.7, 0.0, 3.0, 0.1))

# %% [markdown]
# **Try this.**
# 1. Set the starting offset to 0, then raise the depth to 120. The cloud is centred, yet the mean
#    cosine still climbs toward 1. Toward which point does the cloud shrink?
# 2. Set $\alpha$ to 0. What happens at every depth, and what does that say about the residual
#    connection?
# 3. Raise $\beta$ to 5. Attention becomes local: does the cloud still contract to a single ray, or
#    into several clusters first?

# %% [markdown]
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. Worked solutions are in [SOLUTIONS.md](SOLUTIONS.md); try first.
#
# **03.1 · Compute.** In the default run, `attention_run()`, after which layer does the mean random cosine first exceed 0.9?

# %%
answer = None  # a layer number
check("03.1", answer)

# %% [markdown]
# **03.2 · Explain.** Start from a centred cloud (`offset=0.0`) and stack 120 layers. Where does the mean random cosine end up? (a) near 0, because the cloud is centred (b) near 1, because the cloud collapses onto its own sample mean, which is not exactly the origin (c) below 0

# %%
answer = None  # one of "a", "b", "c"
check("03.2", answer)

# %% [markdown]
# **Where this leads.** Attention is one cause. Notebook
# [04 · Frequency-induced collapse](04_frequency_collapse.ipynb) looks at another: how often each
# token is seen.
