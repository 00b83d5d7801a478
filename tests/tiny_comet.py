"""A tiny COMET checkpoint trained offline in seconds (never a download), for the tests that score COMET."""

import csv
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEMO = [json.loads(line) for line in (ROOT / "data/corpora/demo_eng_spa/corpus.jsonl").read_text().splitlines()]
# training pairs: short entries keep the sequences, and so the training time, small
TRAIN = [e for e in DEMO if len(e["source"]) <= 60][:100]


def train_tiny_comet(folder: Path) -> Path:
    """A COMET regression model on a 2-layer, 32-wide XLM-R with a 400-piece sentencepiece vocabulary
    trained on the demo corpus, taught on short demo entries (two epochs, seconds on a CPU) that the
    reference scores 1 and a source copy 0. Returns folder/checkpoints/model.ckpt (hparams.yaml in folder)."""
    import pytorch_lightning as pl
    import sentencepiece as spm
    import torch
    from comet.models import RegressionMetric
    from transformers import XLMRobertaConfig, XLMRobertaTokenizer, XLMRobertaTokenizerFast

    torch.manual_seed(0)
    encoder = folder / "encoder"
    encoder.mkdir(parents=True)
    text = folder / "text.txt"
    text.write_text("\n".join(e[k] for e in DEMO for k in ("source", "reference")))
    spm.SentencePieceTrainer.train(input=str(text), model_prefix=str(encoder / "sentencepiece.bpe"),
                                   vocab_size=400, character_coverage=1.0, bos_id=-1, eos_id=-1, unk_id=0,
                                   pad_id=-1, minloglevel=2)
    XLMRobertaTokenizer(vocab_file=str(encoder / "sentencepiece.bpe.model")).save_pretrained(encoder)
    tokenizer = XLMRobertaTokenizerFast.from_pretrained(encoder)
    tokenizer.save_pretrained(encoder)
    XLMRobertaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=514, type_vocab_size=1,
                     pad_token_id=tokenizer.pad_token_id).save_pretrained(encoder)
    train = folder / "train.csv"
    with open(train, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["src", "mt", "ref", "score"])
        for e in TRAIN:
            writer.writerow([e["source"], e["reference"], e["reference"], 1.0])
            writer.writerow([e["source"], e["source"], e["reference"], 0.0])
    model = RegressionMetric(pretrained_model=str(encoder), load_pretrained_weights=False, local_files_only=True,
                             hidden_sizes=[16], batch_size=16, train_data=[str(train)],
                             validation_data=[str(train)], nr_frozen_epochs=0, keep_embeddings_frozen=False,
                             learning_rate=1e-3, encoder_learning_rate=1e-3)
    trainer = pl.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
                         limit_val_batches=0)
    trainer.fit(model)
    checkpoint = folder / "checkpoints" / "model.ckpt"
    trainer.save_checkpoint(checkpoint)
    (folder / "hparams.yaml").write_text(yaml.safe_dump(dict(model.hparams)))
    return checkpoint
