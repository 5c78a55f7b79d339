"""
Both networks at a glance
=========================

Block diagrams of the two networks, drawn with matplotlib when the
documentation is built: the structured self-attentive model (Lin et al.
2017) and the hierarchical attention network (Yang et al. 2016).
"""

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch


def block(ax, x, y, text, colour):
    ax.add_patch(
        FancyBboxPatch(
            (x - 0.9, y - 0.28),
            1.8,
            0.56,
            boxstyle="round,pad=0.04",
            facecolor=colour,
            edgecolor="#333333",
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=9)


def arrow(ax, start, end):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color="#333333"))


def column(ax, x, steps):
    for i, (text, colour) in enumerate(steps):
        y = len(steps) - i
        block(ax, x, y, text, colour)
        if i:
            arrow(ax, (x, y + 0.72), (x, y + 0.3))


figure = Figure(figsize=(9, 5.6))
left, right = figure.subplots(1, 2)
column(
    left,
    0,
    [
        ("words w₁ … wₙ", "#f2f2f2"),
        ("embeddings (d)", "#dbe9f6"),
        ("BiLSTM → H (n × 2u)", "#dbe9f6"),
        ("A = softmax(W₂ tanh(W₁Hᵀ))\nr × n, padding masked", "#f6d5d5"),
        ("M = A H (r × 2u)\n+ penalty ‖AAᵀ − I‖²", "#f6d5d5"),
        ("MLP (ReLU) → softmax", "#e2f0d9"),
    ],
)
left.set_title("SelfAttentiveClassifier")
column(
    right,
    0,
    [
        ("words of each sentence", "#f2f2f2"),
        ("embeddings → word BiGRU", "#dbe9f6"),
        ("word attention (u_w)\n→ sentence vectors sᵢ", "#f6d5d5"),
        ("sentence BiGRU", "#dbe9f6"),
        ("sentence attention (u_s)\n→ document vector v", "#f6d5d5"),
        ("linear → softmax", "#e2f0d9"),
    ],
)
right.set_title("HierarchicalAttentionClassifier")
for ax in (left, right):
    ax.set_xlim(-1.2, 1.2)
    ax.set_ylim(0.4, 6.6)
    ax.axis("off")
figure.tight_layout()
