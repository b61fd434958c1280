"""Evaluation: golden sets, retrieval and answer metrics, the stage ablation, baselines and the report.

Modules, in pipeline order::

    golden.py      load_golden(path, split) -> [GoldenQuestion]       (the DESIGN.md format)
    metrics.py     hit@k, recall@k, MRR@10, nDCG@k, abstention rates  (pure, per question)
    answers.py     key facts, citation validity, citation support (judged apart from the verifier), conflicts
    number_judge.py  an independent number judge (not the verifier's reading): citation support, bench/answer_local.py
    baselines.py   retrieval-only (first sentence of the top BM25 unit) and Claude without retrieval
    run.py         evaluate(questions, searcher, k, with_answers) -> EvalResult; result files
    aggregate.py   rows -> the `lexcite eval --json` summary, breakdowns, latency percentiles
    golden_run.py  run_golden(path, ...): what `lexcite eval` calls (calibration only when asked)
    report.py      write_report(folder): report.md and PNGs from the result files

Nothing is re-exported here: `index.calibrate` imports `eval.golden`, and
importing the package must not pull in the index, the answer stage or matplotlib.
"""
