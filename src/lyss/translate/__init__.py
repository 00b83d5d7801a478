"""Translation methods: kind (as written under `methods:` in params.yaml) → class."""

import importlib

from lyss.errors import InputError
from lyss.translate.base import MethodContext, TranslationRecord, Translator

METHOD_KINDS = {
    "apertium": "lyss.translate.command:ApertiumTranslator",
    "command": "lyss.translate.command:CommandTranslator",
    "copy_source": "lyss.translate.simple:CopySource",
    "precomputed": "lyss.translate.simple:Precomputed",
    "openai_compatible": "lyss.translate.openai_compatible:OpenAICompatible",
    "reference": "lyss.translate.reference:ReferenceOracle",
}


def build_translator(kind: str, context: MethodContext) -> Translator:
    if kind not in METHOD_KINDS:
        raise InputError(context.source, f"unknown method kind {kind!r}; known: {', '.join(sorted(METHOD_KINDS))}",
                         field=f"methods.{context.name}.kind")
    module, cls = METHOD_KINDS[kind].split(":")
    return getattr(importlib.import_module(module), cls)(context)


__all__ = ["METHOD_KINDS", "MethodContext", "TranslationRecord", "Translator", "build_translator"]
