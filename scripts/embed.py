"""Snakemake adapter for rules `embed_corpus_field` and `embed_method`."""

import sys

from lyss.embed import embed_field
from lyss.scripting import logged
from lyss.settings import Embeddings

with logged(snakemake.log[0]):
    field = snakemake.wildcards.get("field") or snakemake.wildcards.method
    settings = Embeddings(backend=snakemake.params.backend, batch_size=snakemake.params.batch_size)
    computed = embed_field(snakemake.input.corpus, field, snakemake.output.vectors,
                           translations_path=snakemake.input.get("translations"),
                           reuse=snakemake.input.get("reuse", []), settings=settings)
    print(f"embedded {computed} new texts for {snakemake.wildcards.dataset}/{field}", file=sys.stderr)
