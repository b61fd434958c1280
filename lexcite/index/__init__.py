"""Retrieval: catalog units -> passages -> BM25 + Chroma -> fused, expanded, reranked, thresholded.

    chunks.py     which units are ranked (paragraph level or finer) and how long ones are cut
    embed.py      the embedders (minilm, use, e5, st:<model>), loaded offline
    bm25.py       the legal tokeniser and BM25 with the perimeter as a mask
    dense.py      Chroma, embedded or server, with the perimeter as `where`
    _chroma_import.py  chromadb imported without its overrides checks and OTLP exporter (start-up)
    perimeter.py  Perimeter.admits -> BM25 mask, Chroma `where` (invariant 1)
    fuse.py       reciprocal-rank fusion
    rerank.py     cross-encoder / second-embedder / no reranking
    nearest_sentence.py  the reranker's second reading: a passage's sentence nearest the question
    stages.py     Stages, Params, the ablation rows
    manifest.py   the stored build state (manifest.json) and its check against the catalog
    build.py      `lexcite index`: incremental embedding, the saved BM25 index, the manifest
    interrupted.py one build at a time; an interrupted build marked, cleaned up and completed
    pool.py       the joiner: retriever lists fused into the candidate pool
    siblings.py   the other passages of a top hit's article join the pool
    priorities.py binding and value bonuses
    admission.py  the score scale, the calibrated threshold, top k and scope
    calibrate.py  the abstention threshold, from the dev questions it is given
    scope.py      the laws a question is asked under that the catalog lacks (abstain, naming them)
    search.py     the pipeline: Searcher, Stages, ABLATION, search()
"""
