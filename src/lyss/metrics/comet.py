"""comet_score (spec §2.3): Unbabel COMET, reported beside the composite, never inside it.

The model comes from `resolve_comet_model(target card, override)`: params.yaml
`metric_options.comet_score.model` wins, then the card's `metricModelSupport.comet` (AfriCOMET for the
African languages), then the WMT default. Nothing is downloaded, ever: the model must be a local
checkpoint (`…/checkpoints/model.ckpt` with `hparams.yaml` two levels up, or the folder holding
`checkpoints/`) or a hub id already in the local Hugging Face cache together with its encoder. Anything
else, or a missing `unbabel-comet` (the optional extra `lyss[comet]`), makes the metric unavailable with
the reason, never a failed pipeline.

Per-entry scores are the metric file's values, so confidence intervals resample them and never re-run
the model. `details.low_resource_warning` is true unless the model is validated for the pair: the target
card declares it under `metricModelSupport.comet` (a model trained on human judgements for that
language), or the pair is listed under the option `validated_pairs` (e.g. WMT pairs of the WMT model).
"""

import functools
import importlib.util
import logging
import os
from pathlib import Path

import numpy as np

from lyss.languages import resolve_comet_model
from lyss.metrics.base import MetricResult, ScoringInput

INSTALL_HINT = "pip install 'lyss[comet]' (torch, unbabel-comet, sentencepiece)"
PROVIDE_HINT = ("set metric_options.comet_score.model in params.yaml (`lyss score --comet-model`) to a local "
                "COMET checkpoint (path to checkpoints/model.ckpt, with hparams.yaml two levels up, and the encoder "
                "named in hparams.yaml available locally), or put the model in the Hugging Face cache (HF_HOME) "
                "beforehand")


class CometUnavailable(Exception):
    """The model cannot be used offline here; the message says why and how to provide it."""


def cached_snapshot(model: str) -> Path | None:
    """The folder of a hub id in the local Hugging Face cache (`HF_HUB_CACHE`, else `HF_HOME`/hub, else
    ~/.cache/huggingface/hub), read as files: no hub package is imported, so whether a model is there reads the
    same with or without the COMET extra installed, and so does a versioned metric file saying it is not."""
    hub = os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", "~/.cache/huggingface")).expanduser() / "hub"
    folder = Path(hub, "models--" + model.replace("/", "--"))
    ref = folder / "refs" / "main"
    if ref.is_file():
        snapshot = folder / "snapshots" / ref.read_text(encoding="utf-8").strip()
        return snapshot if snapshot.is_dir() else None
    snapshots = sorted((folder / "snapshots").glob("*")) if (folder / "snapshots").is_dir() else []
    return snapshots[-1] if snapshots else None


def locate_checkpoint(model: str) -> Path:
    """The `model.ckpt` for a local path or a hub id in the local cache, without any download."""
    path = Path(model).expanduser()
    if path.is_file():
        return path
    if path.is_dir():
        found = sorted(path.glob("checkpoints/*.ckpt"))
        if found:
            return found[0]
        raise CometUnavailable(f"COMET model folder {str(path)!r} has no checkpoints/*.ckpt; {PROVIDE_HINT}")
    if model.startswith(("/", ".", "~")) or model.endswith(".ckpt"):
        raise CometUnavailable(f"COMET checkpoint {model!r} does not exist; {PROVIDE_HINT}")
    folder = cached_snapshot(model)
    if folder is None:
        raise CometUnavailable(f"COMET model {model!r} is not in the local Hugging Face cache and LYSS never "
                               f"downloads at run time; {PROVIDE_HINT}")
    checkpoint = Path(folder, "checkpoints", "model.ckpt")
    if not checkpoint.is_file():
        raise CometUnavailable(f"cached COMET model {model!r} has no checkpoints/model.ckpt; {PROVIDE_HINT}")
    return checkpoint


@functools.lru_cache(maxsize=2)
def load_model(checkpoint: str):
    """Load once per process, encoder files from local disk only."""
    from comet import load_from_checkpoint

    for name in ("pytorch_lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        model = load_from_checkpoint(checkpoint, local_files_only=True)
    except Exception as err:  # noqa: BLE001 — a broken checkpoint or missing encoder files: report, do not crash
        raise CometUnavailable(f"cannot load COMET checkpoint {checkpoint!r}: {type(err).__name__}: {err}; "
                               f"{PROVIDE_HINT}") from None
    model.eval()
    return model


def low_resource_warning(model: str, data: ScoringInput) -> bool:
    declared = (data.target_card.get("metricModelSupport") or {}).get("comet")
    pair = f"{data.source_lang}-{data.target_lang}"
    return not (declared == model or pair in data.options.get("validated_pairs", []))


def prediction_device() -> tuple[str, int]:
    """Where COMET predicts: on the GPU its declaration (`gpus = 1`) makes the workflow reserve, when the node
    has one, else on the CPU, so that a reserved GPU is used and a machine without one still scores. The
    scores are the model's either way (the device changes float rounding only, in the last digits)."""
    import torch

    return ("gpu", 1) if torch.cuda.is_available() else ("cpu", 0)


class CometScore:
    id = "comet_score"
    options_schema = {"model": {"type": "string", "minLength": 1},
                      "batch_size": {"type": "integer", "minimum": 1},
                      "validated_pairs": {"type": "array",
                                          "items": {"type": "string", "pattern": "^[a-z]{3}-[a-z]{3}(?![\\s\\S])"}}}
    cli_options = {"comet_model": "model"}  # `lyss score --comet-model PATH` (COMET's own CLI: --model)
    card_position = 11
    maximum = None
    companions = {"comet_model": ("", {"type": "string"})}
    has_ci = True
    db_column = "comet_score"
    gpus = 1
    direction = "higher"
    ideal = None
    requires_model = True  # `lyss score` leaves it out unless asked for (loading torch costs seconds)

    @staticmethod
    def model_on_disk(card: dict | None, options: dict) -> bool:
        """Whether the model this target card and these options resolve to is a checkpoint on this machine
        (files only, nothing imported): the workflow reserves a GPU job for COMET only then
        (lyss.gpu_jobs)."""
        try:
            locate_checkpoint(resolve_comet_model(card, options.get("model")))
        except CometUnavailable:
            return False
        return True

    def score(self, data: ScoringInput) -> MetricResult:
        n = len(data.entries)
        model = resolve_comet_model(data.target_card, data.options.get("model"))
        notes = {"model": model, "low_resource_warning": low_resource_warning(model, data),
                 "in_composite": False}
        if not n:
            return MetricResult.unavailable(self.id, n, "the corpus is empty", **notes)
        # The model is looked for first, as files: on a machine without it the reason (in a versioned metric
        # file) is the same whether or not the extra is installed. Then whether the extra is installed, asked
        # without importing it: comet imports torch and Lightning (seconds a job), which only a model found on
        # disk is worth.
        not_installed = f"unbabel-comet is not installed: {INSTALL_HINT}"
        try:
            checkpoint = locate_checkpoint(model)
            if importlib.util.find_spec("comet") is None:
                return MetricResult.unavailable(self.id, n, not_installed, **notes)
            predictor = load_model(str(checkpoint))
        except CometUnavailable as err:
            return MetricResult.unavailable(self.id, n, str(err), **notes)
        except (ImportError, ValueError):  # installed, but a package it needs is not (ValueError: find_spec
            return MetricResult.unavailable(self.id, n, not_installed, **notes)  # of a module set to None)
        samples = [{"src": e["source"], "mt": p or "", "ref": e["reference"]}
                   for e, p in zip(data.entries, data.predictions, strict=True)]
        accelerator, gpus = prediction_device()
        output = predictor.predict(samples, batch_size=int(data.options.get("batch_size", 16)), gpus=gpus,
                                   progress_bar=False, accelerator=accelerator)
        values = np.asarray(output.scores, dtype=float)
        return MetricResult(self.id, values, float(values.mean()), counts={"comet_model": model},
                            details={**notes, "checkpoint": str(checkpoint), "device": accelerator,
                                     "validated_for": "target card's metricModelSupport.comet or option "
                                                      "validated_pairs"})
