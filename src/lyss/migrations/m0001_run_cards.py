"""The run-card table of spec §9.1: the full card (jsonb in PostgreSQL, JSON text in SQLite), every
§9.1 column with its type, the §9.1 indexes, and the bookkeeping of versions per dataset × method.

A migration is a frozen snapshot: later columns come in later migrations, so this list never changes."""

# Spec §9.1, in its order: column and type.
SPEC_COLUMNS = [
    ("composite_score", "real"),
    ("quality_tier", "text"),
    ("chrf_plus_plus", "real"),
    ("exact_match_rate", "real"),
    ("fst_acceptance_rate", "real"),
    ("corpus_bleu", "real"),
    ("comet_score", "real"),
    ("total_cost_usd", "real"),
    ("cost_per_entry_usd", "real"),
    ("cost_per_source_char", "real"),
    ("avg_latency_seconds", "real"),
    ("model_slug", "text"),
    ("condition", "text"),
    ("dataset_id", "text NOT NULL"),
    ("language_pair", "text"),
    ("fingerprint_hash", "text NOT NULL"),
    ("equivalent_match_rate", "real"),
    ("semantic_score", "real"),
    ("ter", "real"),
    ("length_ratio", "real"),
    ("code_switching_rate", "real"),
    ("hallucination_rate", "real"),
    ("terminology_adherence", "real"),
    ("tokens_per_second", "real"),
    ("entries_per_minute", "real"),
    ("elapsed_seconds", "real"),
]

DIALECT = {
    "sqlite": {
        "id": "id INTEGER PRIMARY KEY AUTOINCREMENT",
        "run_card": "run_card text NOT NULL CHECK (json_valid(run_card))",
        "boolean": "integer NOT NULL CHECK (is_current IN (0, 1))",
        "timestamp": "text NOT NULL",
        "current": "is_current = 1",
    },
    "postgresql": {
        "id": "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        "run_card": "run_card jsonb NOT NULL",
        "boolean": "boolean NOT NULL",
        "timestamp": "timestamptz NOT NULL",
        "current": "is_current",
    },
}


def upgrade(dialect: str) -> list[str]:
    d = DIALECT[dialect]
    columns = [
        d["id"],
        "method_name text NOT NULL",
        "version integer NOT NULL",
        f"is_current {d['boolean']}",
        f"created_at {d['timestamp']}",
        f"pushed_at {d['timestamp']}",
        *(f"{name} {kind}" for name, kind in SPEC_COLUMNS),
        d["run_card"],
        "CONSTRAINT uq_run_cards_fingerprint UNIQUE (dataset_id, method_name, fingerprint_hash)",
        "CONSTRAINT uq_run_cards_version UNIQUE (dataset_id, method_name, version)",
    ]
    return [
        "CREATE TABLE run_cards (\n    " + ",\n    ".join(columns) + "\n)",
        "CREATE INDEX idx_composite ON run_cards (composite_score)",
        "CREATE INDEX idx_leaderboard ON run_cards (dataset_id, chrf_plus_plus)",
        "CREATE INDEX idx_model ON run_cards (model_slug)",
        "CREATE INDEX idx_fingerprint ON run_cards (fingerprint_hash)",
        # At most one current version per dataset × method (the leaderboard reads these rows).
        f"CREATE UNIQUE INDEX uq_run_cards_current ON run_cards (dataset_id, method_name) WHERE {d['current']}",
    ]
