"""Common English words in chat questions that must not turn into op names.

ATen names many ops after ordinary words (`any`, `all`, `where`, `max`, `sort`, `view`...),
and a forgiving matcher turns other words into them (`many` is one letter from `any`). A
question is read as being about such an op only when it marks the word as code (`aten::`,
`torch.`, `F.`, backticks, a trailing `()`: kb.chat.intents reads those as op and function
spellings) or when the word is the question's subject ("is where supported on tpu?").
Fuzzy matching never starts from a common English word and never lands on one of these
ops: someone who means `aten::mode` writes `mode`, not `modes`.
"""

from __future__ import annotations

import re

# ATen base names that are everyday English (checked against the torch 2.13.0 op catalog); "ones" as in
# "which ones fell back?" (held-out r10 q33: read as aten::ones).
ENGLISH_OPS = frozenset("""
all any copy data dim dist empty equal fill fix full greater index indices item less lift max min mode
normal ones put random range real repeat resize round select set sign size slice sort split square stack take
to trace values view where zero
""".split())

# Words of questions that are no op and must not be fuzzy-matched into one.
COMMON_ENGLISH = frozenset("""
many much more most few fewer least lot lots number count counts total amount several
mine modes views sorts sets takes splits rounds signs copies values traces stacks ranges
tensor tensors model models layer layers thing things way ways kind kinds type types part parts
compile compiled compiles compiling compilation compilar compilado compilada
""".split())

# Everyday Spanish words of questions ("¿qué ops le faltan...?"): never a misspelled op or model.
COMMON_SPANISH = frozenset("""
falta faltan faltaria tiene tienen hace hacen puede pueden quiero queda quedan sale salen corre corren
anda andan jala jalan sirve sirven tengo tenemos hay cual cuales cuando donde como porque modo
""".split())

# "is where supported on tpu?", "does sort run on neuron", "can I use view on trn2?": the word right
# after the question's verb (and an optional "I use", article or "op") is what it is about.
# The word must be followed by what is said of it ("where supported", "sort on tpu"), not by a noun it
# qualifies ("does any op fall back", "are all ops native": there it is a determiner).
_SAID_OF = (r"(?=\s+(?:native|natively|supported|unsupported|decomposed|fall|falls|fallback|run|runs|work|works|"
            r"available|implemented|registered|ok|okay|fine|on|in|for|with|vs|versus|between|\()|\s*[?.!]|\s*$)")
_SUBJECT = re.compile(
    r"^\s*(?:is|does|do|are|can|will|would|could|should|did)\s+(?:i|we|you)?\s*(?:use|run|call)?\s*"
    r"(?:the\s+|an?\s+)?(?:op\s+|operator\s+|function\s+)?([A-Za-z_]\w*)\b" + _SAID_OF, re.I)
_ABOUT = re.compile(r"^\s*(?:(?:what|how)\s+about|compare|status\s+of)\s+(?:the\s+)?([A-Za-z_]\w*)\b" + _SAID_OF,
                    re.I)


def subject(text: str) -> str | None:
    """The word a yes/no question is about, lower case ("is where supported..." → "where")."""
    m = _SUBJECT.match(text) or _ABOUT.match(text)
    return m.group(1).lower() if m else None


def may_be_op(word: str, text: str) -> bool:
    """Whether a plain (unmarked) word of `text` may be read as an op name: always, unless it
    is an everyday English word, which is an op only as the question's subject."""
    lower = word.lower()
    if lower in COMMON_ENGLISH or lower in COMMON_SPANISH:
        return False
    return lower not in ENGLISH_OPS or subject(text) == lower


# Everyday words one letter or two from a model or op name, in both languages: verbs and function words a
# question is made of ("¿cómo llamo a torch.nonzero?" calls it, it names no Llama), never a typo (29p).
EVERYDAY = frozenset("""
llamo llamas llamar llaman llame llamen llamamos llamaba llamaban llamado llamada llamados llamadas llamando
gamma rest reset resets resent part parts best bets berth swing twin clips flip flips grow growth fit
mismo misma tiene hacer haces hago usas usando usado llevo lleva
deberia deberian debería deberían debe deben debo deberiamos deberíamos debes
""".split())


def fuzzy_allowed(word: str, fixed: str) -> bool:
    """A typo correction word → fixed is made only between words that are not everyday
    English on either side (many → any, modes → mode are refused)."""
    return (word.lower() not in COMMON_ENGLISH | COMMON_SPANISH | ENGLISH_OPS | EVERYDAY
            and fixed.lower() not in ENGLISH_OPS)
