"""Would the second reader (all-mpnet-base-v2) rank better after a little training on how users ask?

    LEXCITE_HOME=HOME HF_HUB_OFFLINE=1 .venv/bin/python bench/finetune_second.py [--epochs 2] [--max-tokens 128]

An experiment, not a stage: nothing here is used by lexcite. It ranks the home's current passages by mpnet's
cosine alone (no BM25, e5, perimeter or rerank), reports paragraph hit@6 and MRR on the golden dev and test
splits, then trains the model on the dev split's (question, one expected passage) pairs with in-batch negatives
(the multiple-negatives ranking loss, written out in torch) and reports the same figures again. Test is also
reported on two subsets that no dev question can have taught: the blind batches (`el`-`et`, whose expected units
no other question uses) and the questions whose expected provisions no dev question asks about. Questions with an
act filter and the twelve-act `cx` questions are left out. On 2 cores: about 4 min per ranking, 4 min per epoch.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from lexcite.eval.golden import GoldenQuestion, load_golden
from lexcite.index.chunks import Passage
from lexcite.index.model_parts import MPNET, model_folder
from lexcite.index.search import Searcher

BLIND = ("el", "em", "en", "eo", "ep", "eq", "er", "es", "et")


def hits_at_6(model, passages: list[Passage], questions: list[GoldenQuestion],
              relevant: dict[str, list[int]]) -> dict[str, tuple[bool, float]]:
    """Per question: whether a relevant passage is among mpnet's first 6, and its reciprocal rank (0 beyond 20)."""
    vectors = model.encode([p.body for p in passages], batch_size=32, normalize_embeddings=True)
    asked = model.encode([q.question for q in questions], batch_size=32, normalize_embeddings=True)
    out = {}
    for q, v in zip(questions, asked, strict=True):
        order = np.argsort(-(vectors @ v))
        rank = min((int(np.flatnonzero(order == i)[0]) for i in relevant[q.id]), default=10**6)
        out[q.id] = (rank < 6, 1.0 / (rank + 1) if rank < 20 else 0.0)
    return out


def train(model, pairs: list[tuple[str, str]], epochs: int, lr: float, batch: int = 16) -> None:
    """In-batch negatives: each question against its own passage and the batch's other passages."""
    import torch
    import torch.nn.functional as F  # noqa: N812

    optimiser = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for _ in range(epochs):
        random.shuffle(pairs)
        for start in range(0, len(pairs), batch):
            chunk = pairs[start:start + batch]
            sides = [F.normalize(model(model.tokenize([p[k] for p in chunk]))["sentence_embedding"], dim=-1)
                     for k in (0, 1)]
            loss = F.cross_entropy(sides[0] @ sides[1].T * 20.0, torch.arange(len(chunk)))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    model.eval()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", type=Path, default=Path("data/golden/golden.jsonl"))
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--max-tokens", type=int, default=128, help="the model's window, for training and ranking")
    args = ap.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    random.seed(0)
    passages = [p for p in Searcher().passages if p.record.status == "current"]
    questions = [q for q in load_golden(args.golden)
                 if q.answerable and q.expected and not q.id.startswith("cx") and not q.perimeter.acts]
    relevant = {q.id: [i for i, p in enumerate(passages) if any(p.record.unit.ref.on_branch(e) for e in q.expected)]
                for q in questions}
    dev = [q for q in questions if q.split == "dev"]
    test = [q for q in questions if q.split == "test"]
    taught = {(e.act, e.unit.split(".")[0]) for q in dev for e in q.expected}
    subsets = {"dev": dev, "test": test, "test, blind batches": [q for q in test if q.id.startswith(BLIND)],
               "test, provisions no dev question asks about":
                   [q for q in test if not any((e.act, e.unit.split(".")[0]) in taught for e in q.expected)]}
    model = SentenceTransformer(str(model_folder(MPNET)), device="cpu")
    model.max_seq_length = args.max_tokens

    def report(name: str) -> None:
        t = time.perf_counter()
        ranks = hits_at_6(model, passages, dev + test, relevant)
        for subset, qs in subsets.items():
            hit = np.mean([ranks[q.id][0] for q in qs])
            mrr = np.mean([ranks[q.id][1] for q in qs])
            print(f"{name:8s} {subset:45s} n={len(qs):3d} hit@6 {hit:.3f} MRR {mrr:.3f}")
        print(f"{name:8s} ranked in {time.perf_counter() - t:.0f} s", flush=True)

    report("base")
    pairs = [(q.question, passages[random.choice(relevant[q.id])].body) for q in dev if relevant[q.id]]
    t = time.perf_counter()
    train(model, pairs, args.epochs, args.lr)
    print(f"trained on {len(pairs)} dev pairs, {args.epochs} epochs, in {time.perf_counter() - t:.0f} s")
    report("trained")


if __name__ == "__main__":
    main()
