"""Retrieval: catalog units -> passages -> BM25 + Chroma -> fused, expanded, reranked, thresholded.

    chunks.py     which units are ranked (paragraph level or finer) and how long ones are cut
    embed.py      the embedders (minilm, use, e5, st:<model>), loaded offline
    bm25.py       the legal tokeniser and BM25 with the perimeter as a mask
    dense.py      Chroma, embedded or server, with the perimeter as `where`
    perimeter.py  Perimeter.admits -> BM25 mask, Chroma `where` (invariant 1)
    fuse.py       reciprocal-rank fusion
    rerank.py     cross-encoder / second-embedder / no reranking
    build.py      `lexcite index`: incremental embedding and the manifest
    calibrate.py  the abstention threshold, from dev questions only
    scope.py      the laws a question is asked under that the catalog lacks (abstain, naming them)
    search.py     the pipeline: Searcher, Stages, ABLATION, search()
"""
