"""Plains Cree (nêhiyawêwin, SRO): variant-class rules for equivalent match and the SRO orthography."""
