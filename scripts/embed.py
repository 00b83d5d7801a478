"""Snakemake adapter for rules `embed_corpus` (the source and reference files, one model for both) and
`embed_method` (one method's outputs)."""

import sys
from pathlib import Path

from lyss.embed import embed_field
from lyss.embed.embedders import embeddings_from_files
from lyss.scripting import logged
from lyss.settings import Embeddings

with logged(snakemake.log[0]):
    settings = Embeddings(backend=snakemake.params.backend, batch_size=snakemake.params.batch_size)
    table = embeddings_from_files(snakemake.input.get("reuse", []), settings.backend, settings.batch_size)
    for out in snakemake.output.vectors:
        field = Path(out).stem
        computed = embed_field(snakemake.input.corpus, field, out, settings=settings, embeddings=table,
                               translations_path=snakemake.input.get("translations"))
        print(f"embedded {computed} new texts for {snakemake.wildcards.dataset}/{field}", file=sys.stderr)
