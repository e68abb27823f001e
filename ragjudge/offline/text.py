"""Pure-Python text utilities for the offline judge: tokens, stems, sentences, statements.

Everything here is deterministic and dependency-free. Tokens are lower-cased words and
normalized numbers; "content" tokens are tokens that are not stopwords; stems come from a small
suffix stripper that is applied identically to answers and contexts, so that "grows" matches
"grow" and "rates" matches "rate".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any, Literal, NamedTuple

__all__ = [
    "ANTONYMS",
    "CJK_NEGATIONS",
    "ENGLISH_NUMBER_WORDS",
    "NEGATIONS",
    "NEGATION_REACH",
    "STOPWORDS",
    "SentenceProfile",
    "Token",
    "canonical",
    "content_stems",
    "is_cjk",
    "is_common_word",
    "is_filler",
    "is_initial",
    "negation_count",
    "negation_scopes",
    "normalize_number",
    "segment_statements",
    "sentence_profile",
    "split_sentences",
    "stem",
    "tokenize",
]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(
    # "non-profit" is one word: "non" alone is a negation (Italian "non è", French "non")
    r"(?i:non) ?- ?[^\W\d_]+|"
    rf"[{_CJK}]+|\d+(?:[.,]\d+)+[^\W\d_{_CJK}]+|\d+(?:[.,:/]\d+)*(?![^\W_{_CJK}])"
    rf"|[^\W_{_CJK}]*[^\W\d_{_CJK}][^\W_{_CJK}]*(?:['’][^\W\d_]+)?",
    re.UNICODE,
)
_CJK_RE = re.compile(f"[{_CJK}]")
_NON_RE = re.compile(r"^non ?- ?")
_KANA_RE = re.compile(r"[\u3040-\u30ff]")
_SCRIPT_RUN_RE = re.compile(
    r"[\u3040-\u309f]+|[\u30a0-\u30ff]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
)


def is_cjk(char: str) -> bool:
    """Whether a character is Japanese kana or a CJK ideograph (scripts without spaces).

    Args:
        char: One character.

    Returns:
        True for hiragana, katakana and CJK ideographs.
    """
    return (
        "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"
    )


_CJK_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_CJK_UNITS = {"十": 10, "百": 100, "千": 1000}
_CJK_SCALES = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
# A numeral run: two or more numeral characters starting with a digit or 十, or a single one
# before a counter word ("三人", "五年"). "一" alone, "万一" (in case) and "千万" (by all means)
# are words, not numbers.
_CJK_NUMERAL_RE = re.compile(
    "[〇零一二两兩三四五六七八九十][〇零一二两兩三四五六七八九十百千万萬亿億]+"
    "|[二两兩三四五六七八九十](?=[年月日人名个個位家座件种種次岁歳倍%％])"
)


def cjk_numeral_value(run: str) -> int | None:
    """The value of a run of Chinese / Japanese numerals ("五百" 500, "一九九五" 1995).

    Args:
        run: Numeral characters only.

    Returns:
        The value, or None when the run is not a well-formed number.
    """
    if all(c in _CJK_DIGITS for c in run):
        return int("".join(str(_CJK_DIGITS[c]) for c in run))  # digit by digit: "一九九五"
    total = section = digit = 0
    for c in run:
        if c in _CJK_DIGITS:
            digit = _CJK_DIGITS[c]
        elif c in _CJK_UNITS:
            section += (digit or 1) * _CJK_UNITS[c]
            digit = 0
        elif c in _CJK_SCALES:
            total += (section + digit) * _CJK_SCALES[c]
            section = digit = 0
        else:
            return None
    return total + section + digit


def cjk_numerals(text: str) -> list[tuple[int, int, int]]:
    """Spans of Chinese / Japanese numeral runs in a text, with their values.

    Args:
        text: Any text.

    Returns:
        `(start, end, value)` per run.
    """
    out = []
    for m in _CJK_NUMERAL_RE.finditer(text):
        value = cjk_numeral_value(m.group(0))
        if value is not None:
            out.append((m.start(), m.end(), value))
    return out


def _ideograph_pieces(piece: str, offset: int, *, chinese: bool) -> list[tuple[str, int]]:
    """A run of ideographs as its words (Chinese) or overlapping bigrams (Japanese kanji between
    kana), with its numeral runs and weekdays (周一, 星期二, 月曜日) kept whole."""
    split = _chinese_words if chinese else _bigrams
    out: list[tuple[str, int]] = []
    last = 0
    for day in _CJK_WEEKDAY_RE.finditer(piece):
        out.extend(_with_numerals(piece[last : day.start()], offset + last, split))
        out.append((day.group(0), offset + day.start()))
        last = day.end()
    out.extend(_with_numerals(piece[last:], offset + last, split))
    return out


def _with_numerals(
    piece: str, offset: int, split: Callable[[str, int], list[tuple[str, int]]]
) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    last = 0
    for start, end, _ in cjk_numerals(piece):
        out.extend(split(piece[last:start], offset + last))
        out.append((piece[start:end], offset + start))
        last = end
    out.extend(split(piece[last:], offset + last))
    return out


_CJK_WEEKDAY_RE = re.compile(r"(?:周|週|星期|礼拜|禮拜)[一二三四五六日天]|[月火水木金土日]曜日?")
#: 周一 / 星期一 / 月曜日 = Monday ...: read as the English weekday, so a swapped day is a
#: swapped date as in English ("周二休息" against "每周一休息").
_CJK_WEEKDAYS = {
    "一": "monday", "二": "tuesday", "三": "wednesday", "四": "thursday", "五": "friday",
    "六": "saturday", "日": "sunday", "天": "sunday",
}  # fmt: skip
_JAPANESE_WEEKDAYS = {
    "月": "monday", "火": "tuesday", "水": "wednesday", "木": "thursday", "金": "friday",
    "土": "saturday", "日": "sunday",
}  # fmt: skip


def _chinese_words(piece: str, offset: int) -> list[tuple[str, int]]:
    """Chinese words by jieba's dictionary (rjieba): "该公司拥有500名员工" gives 该, 公司, 拥有,
    500, 名, 员工, where bigrams would add the non-words 该公, 司拥 and 名员 (missing from any
    context)."""
    out: list[tuple[str, int]] = []
    for word in _segmenter().cut(piece) if piece else ():
        out.append((word, offset))
        offset += len(word)
    return out


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import rjieba  # loads its dictionary: only when Chinese text is first read

    return rjieba


def _bigrams(piece: str, offset: int) -> list[tuple[str, int]]:
    if len(piece) > 2:
        return [(piece[i : i + 2], offset + i) for i in range(len(piece) - 1)]
    return [(piece, offset)] if piece else []


def is_hangul(char: str) -> bool:
    """Whether a character is a Korean syllable.

    Args:
        char: One character.

    Returns:
        True for Hangul syllables (U+AC00 to U+D7A3).
    """
    return "\uac00" <= char <= "\ud7a3"


# Korean case and topic particles, longest first: "회사는" and "회사가" both match "회사".
#: Verb endings: the final "-다", the connectives "-고", "-며", "-지만", "-는데", the polite
#: "-습니다"; what is left is the verb with its tense ("설립되었").
_HANGUL_ENDINGS = ("습니다", "니다", "지만", "는데", "다", "고", "며")
_HANGUL_PARTICLES = (
    *"에서 으로 에게 까지 부터 처럼".split(),
    *"은 는 이 가 을 를 의 에 로 와 과 도 만".split(),
)


def _surfaces(text: str) -> list[tuple[str, int]]:
    """Word surfaces with offsets; runs of CJK script become script-aware pieces.

    Text written without spaces is cut where the script changes (kanji, hiragana, katakana);
    a run of ideographs longer than two becomes its overlapping character bigrams, so that
    "従業員" matches "従業員" inside "従業員がいます" and "设立" matches "设立于".
    """
    if not _CJK_RE.search(text):
        return [(m.group(0), m.start()) for m in _TOKEN_RE.finditer(text)]
    chinese = not _KANA_RE.search(text)
    out: list[tuple[str, int]] = []
    for match in _TOKEN_RE.finditer(text):
        surface = match.group(0)
        if not is_cjk(surface[0]):
            out.append((surface, match.start()))
            continue
        for run in _SCRIPT_RUN_RE.finditer(surface):
            piece, offset = run.group(0), match.start() + run.start()
            if "\u3400" <= piece[0]:
                out.extend(_ideograph_pieces(piece, offset, chinese=chinese))
            else:
                out.append((piece, offset))
    return out


#: The English number words from zero to ninety: read by the tokenizer (`_NUMBER_WORDS`) and,
#: with other languages' words, by `ragjudge.offline.numbers.number_values`.
ENGLISH_NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_NUMBER_WORDS = {
    **{word: str(value) for word, value in ENGLISH_NUMBER_WORDS.items()},
    "hundred": "100", "thousand": "1000", "million": "1000000", "billion": "1000000000",
}  # fmt: skip

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been
    before being between both but by can could did do does doing down during each either else
    etc even ever every few for from further had has have having he her here hers herself him
    himself his how however i if in into is it it's its itself just let like may me might more
    most much must my myself nor now of off often on once only or other others our ours
    ourselves out over own per quite rather really same shall she should so some such than that
    that's the their theirs them themselves then there these they this those through thus to too
    under until up upon us very via was we were what when where whether which while who whom
    whose why will with within would yet you your yours yourself yourselves s t d ll re ve m
    said says say one also well get got gets make makes made use used using many much lot lots
    thing things way ways something someone anything everything overall generally typically
    usually mainly passage text article document summary summarize summarizes describes
    mentions states according provided based around approximately roughly circa
    percent dollar dollars euro euros usd eur""".split()
)

NEGATIONS: frozenset[str] = frozenset(
    """not no never none nobody nothing neither nowhere cannot can't don't doesn't didn't isn't
    aren't wasn't weren't won't wouldn't shouldn't couldn't hasn't haven't hadn't without
    n't nicht kein keine keinen keiner nie niemals ohne pas jamais aucun aucune sans nunca
    ningún ninguna ninguno jamás non não nenhum nenhuma не нет никогда niet geen nooit
    nessuno nessuna""".split()
)
# German, French and Spanish function words (none of which is an English content word).
STOPWORDS = STOPWORDS | frozenset(
    """der das den dem des ein eine einer eines einem einen und oder aber ist sind waren
    wird werden wurde wurden haben hatte hatten sich von zu zum zur im auf für bei aus
    nach über unter vor es er sie wir ihr ich auch noch nur sehr schon dass wie wenn
    le les un une des du et ou mais est sont à était étaient sera fut été avoir ont avait
    il elle ils elles nous vous je ce cette ces qui que dans sur avec en au aux
    aussi très plus où dont leur leurs ses sa par pour
    el los las unos unas del y o pero es eran fue fueron ser sido ha había
    tiene tienen tenía él ella ellos ellas nosotros que en con para por sobre también
    muy más donde cuyo su sus lo se
    в во на и с со к по о об от до из за для у но а что как это то же ли бы не
    il lo gli della delle dei degli nel nella per una uno di da ed ma che
    os um uma umas uns do da dos das na nos nas em com para pelo pela ao
    de het een en op te voor aan bij uit maar ook
    diese dieser diesem diesen seit bis durch gegen ohne um mit ihre ihren ihrem seine
    seinen seinem seiner sein kann können konnte worden bereits jetzt hier dort sowie als
    zwischen wieder
    la l' d' au après entre depuis sans sous vers chez comme si ne lui y être sur
    al este esta estos estas ese esa desde hasta como cuando ya está están estaba estaban
    foi são seu sua seus suas na à às até sem ele ela eles elas estão
    le è sono alla alle dal dalla dagli dai sul sulla con tra fra anche più questo questa
    suo sua stato stata stati viene
    был была было были его её ее их он она они этот эта эти при также уже ещё еще который
    которая которое которые""".split()
)  # not "son", "hay", "era", "come", "war", "hat", "die", "state": English words too
# Negations that follow the verb they negate: Japanese verb endings (設立されませんでした) and
# Korean auxiliaries (설립되지 않았다, 없다). Their scope is the word before them.
_SUFFIX_NEGATIONS = ("ない", "ません", "なかった", "なく")
_KOREAN_NEGATIONS = ("않", "없")
CJK_NEGATIONS = ("不", "没", "沒", "未", "无", "無", "非", *_SUFFIX_NEGATIONS)


@lru_cache(maxsize=131072)
def _is_negation_norm(norm: str) -> bool:
    if norm in NEGATIONS or norm.endswith("n't"):
        return True
    if _is_suffix_negation(norm):
        return True
    return bool(norm) and is_cjk(norm[0]) and any(n in norm for n in CJK_NEGATIONS)


@lru_cache(maxsize=131072)
def _is_suffix_negation(norm: str) -> bool:
    if not norm:
        return False
    if is_hangul(norm[0]):
        return norm.startswith(_KOREAN_NEGATIONS)
    return "\u3040" <= norm[0] <= "\u309f" and any(n in norm for n in _SUFFIX_NEGATIONS)


_ANTONYM_PAIRS = """pass fail|increase decrease|increase decline|increase reduce|rise fall|rise drop
rise decline|grow shrink|grow decline|gain loss|gain lose|win lose|win loss|up down
above below|higher lower
high low|more less|more fewer|larger smaller|large small|big small|bigger smaller|long short
longer shorter|before after|early late|earlier later|first last|positive negative|strong weak
stronger weaker|easy difficult|easy hard|easier harder|certain uncertain|certainty uncertainty
likely unlikely|possible impossible|able unable|accept reject|include exclude|approve reject
agree disagree|support oppose|allow forbid|allow prohibit|open close|start end|begin end
buy sell|bought sold|maximum minimum|max min|majority minority|success failure|succeed fail
profit loss|rich poor|old new|old young|older younger|male female|man woman|men women
husband wife|father mother|son daughter|brother sister|king queen|boy girl|north south
east west|left right|inside outside|internal external|import export|input output|add remove
best worst|better worse|good bad|happy sad|love hate|true false|correct incorrect|legal illegal
public private|full empty|hot cold|warm cool|wet dry|fast slow|faster slower|heavy light
dark light|alive dead|live die|same different|similar different|always never|all none
everyone nobody|increasing decreasing|upward downward|inflow outflow|surplus deficit
expand contract|expansion contraction|strengthen weaken|improve worsen|improvement deterioration
raise lower|raised lowered|up down|top bottom|future past|next previous|attack defend
victory defeat|won lost|ally enemy|friend enemy|present absent|increasingly decreasingly
sufficient insufficient|adequate inadequate|stable unstable|safe unsafe|safe dangerous
significant insignificant|major minor|maximum minimum|cheap expensive|cheaper pricier
short-term long-term|below above|under over|outside within|survive die|survived died
|stieg sank|stiegen sanken|steigen sinken|gestiegen gesunken|nord süd|norden süden|ost west
|osten westen|mehr weniger|offen geschlossen|geöffnet geschlossen|zunahme abnahme|gewann verlor
|gewonnen verloren|erhöht gesenkt|augmenté baissé|augmenté diminué|augmente baisse
|augmente diminue|hausse baisse|sud nord|ouest est|ouvert fermé|ouverte fermée|gagné perdu
|abre cierra|abren cierran|abrió cerró|ouvre ferme|ouvrent ferment|öffnet schließt
|öffnen schließen|apre chiude|aumentaron disminuyeron|aumentó disminuyó|aumentar disminuir
|aumento disminución|subió bajó
|norte sur|oeste este|abierto cerrado|abierta cerrada|ganó perdió|más menos
|増加 減少|上昇 下落|上昇 低下|勝利 敗北|增长 下降|增加 减少|上升 下降|胜利 失败
|증가했다 감소했다|증가한 감소한|증가 감소|상승 하락|상승했다 하락했다
|北方 南方|北部 南部|东部 西部|東部 西部|东方 西方|東方 西方|上涨 下跌|북부 남부|동부 서부
|tall short|wide narrow|thick thin|deep shallow|freeze boil|froze boiled|frozen boiling
|urban rural|ancient modern|temporary permanent|guilty innocent|convicted acquitted
|arrive depart|arrived departed|arrival departure|ascend descend|asleep awake|loud quiet
|rough smooth|senior junior|mandatory optional|mandatory voluntary|compulsory optional
|optimistic pessimistic|inflation deflation|appreciate depreciate|overestimate underestimate
|overvalued undervalued|bullish bearish|admit deny|admitted denied|confirm deny|confirmed denied
|praise criticize|praised criticized|reward punish|hire fire|hired fired|lend borrow
|lent borrowed|push pull|double halve|doubled halved|sunrise sunset|inbound outbound
|approve block|approved blocked|approve veto|approved vetoed|survive kill|survived killed
|northern southern|eastern western|northeast southwest|northwest southeast|rose fell
|northeastern southwestern|northwestern southeastern|risen fallen|rising falling|most least
|praise criticise|praised criticised|suspend resume|suspended resumed|acquit convict
|success flop|profitable unprofitable|legalize ban|legalized banned|legalise ban
|legalised banned|lift impose|lifted imposed|expand shrink|expanded shrank
|indoor outdoor|strict lenient
|hoch niedrig|groß klein|alt jung|älteste jüngste|grand petit|vieux jeune|alto bajo
|grande pequeño|viejo joven"""

ANTONYMS: dict[str, frozenset[str]] = {}


def _build_antonyms() -> None:
    pairs: dict[str, set[str]] = {}
    for chunk in _ANTONYM_PAIRS.replace("\n", "|").split("|"):
        words = chunk.split()
        if len(words) != 2:
            continue
        forms = [words]
        if all(w.isascii() and w.isalpha() for w in words):
            # "taller" / "shorter", "oldest" / "youngest"
            forms += [[_graded(w, suffix) for w in words] for suffix in ("er", "est")]
        for x, y in forms:
            a, b = stem(x), stem(y)
            pairs.setdefault(a, set()).add(b)
            pairs.setdefault(b, set()).add(a)
    ANTONYMS.update({k: frozenset(v) for k, v in pairs.items()})


def _graded(word: str, suffix: str) -> str:
    """The comparative or superlative of an English adjective ("big" -> "bigger", "happy" ->
    "happiest", "late" -> "latest")."""
    if word.endswith("e"):
        return word + suffix[1:]
    if word.endswith("y") and len(word) >= 3 and word[-2] not in "aeiou":  # "dry" -> "driest"
        return word[:-1] + "i" + suffix
    if len(word) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", word):
        return word + word[-1] + suffix  # one vowel before one final consonant: doubled
    return word + suffix


#: Punkt's orthographic flags (NLTK `punkt_tab/english/ortho_context.tab`, shipped in
#: `ragjudge.lexical`): a word seen lower-case inside a sentence (32) or at an unknown position
#: (64) of its English news training text.
_ORTHO_LOWER = 32 | 64


@lru_cache(maxsize=1)
def _ortho_flags() -> dict[str, int]:
    from ragjudge.lexical._resources import DATA_DIR

    flags: dict[str, int] = {}
    path = DATA_DIR / "punkt_tab" / "english" / "ortho_context.tab"
    with path.open(encoding="utf-8") as f:
        for line in f:
            word, _, value = line.rstrip("\n").partition("\t")
            flags[word] = int(value)
    return flags


def is_common_word(norm: str) -> bool:
    """Whether an English word is written lower-case inside sentences (a common word), so that
    a capital on it at a sentence's start says nothing ("Since", "Researchers"), while names
    ("Bern", "Obama": unknown to the list, or only ever capitalized) are not.

    Args:
        norm: The lower-cased word.

    Returns:
        True when Punkt's English orthographic statistics saw it lower-case mid-sentence, or
        when it is a stopword.
    """
    word = norm.replace("’", "'")
    if word in STOPWORDS:
        return True
    flags = _ortho_flags()
    if word.endswith("'s"):
        word = word[:-2]
    forms = [word, stem(word)]  # "tributes": "tribute"
    if word.endswith("s"):
        forms += [word[:-1], word[:-2] if word.endswith("es") else word]
    return any(flags.get(w, 0) & _ORTHO_LOWER for w in forms)


class Token(NamedTuple):
    """One token of a text.

    Attributes:
        text: The surface form as written (case preserved).
        norm: Lower-cased form; numbers with thousands separators removed.
        stem: `stem(norm)`, the matching key.
        is_number: Whether the token is a number (digits, or a number word).
        is_capital: Whether the surface form starts with an upper-case letter.
        sentence_initial: Whether the token starts its sentence (capitals there mean little).
        start: Character offset of the token in the text.
        is_content: Whether the token carries content (not a stopword or a negation).
    """

    text: str
    norm: str
    stem: str
    is_number: bool
    is_capital: bool
    sentence_initial: bool
    start: int
    is_content: bool


def normalize_number(text: str) -> str:
    """Normalize a numeric token: drop thousands separators and trailing `.0`.

    Args:
        text: A token made of digits and separators, e.g. "1,000" or "3.50".

    Returns:
        The normalized form, e.g. "1000" or "3.5".
    """
    value = text
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", value):
        value = value.replace(",", "")
    if re.fullmatch(r"\d+\.\d+", value):
        value = value.rstrip("0").rstrip(".")
    return value


#: Verbs whose own last letters are "ell" ("smelled" is "smell", not "smel").
_ELL_WORDS = ("dwell", "smell", "spell", "swell", "shell", "yell", "sell", "tell", "quell")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Strip common English inflectional suffixes (a deliberately light stemmer).

    Args:
        word: A lower-cased token.

    Returns:
        The stem used for matching, e.g. "increases" -> "increas", "studies" -> "study".
    """
    w = word.replace("’", "'")
    if w and is_hangul(w[-1]):
        for ending in _HANGUL_ENDINGS:  # "설립되었다", "설립되었고": "설립되었"
            if w.endswith(ending) and len(w) > len(ending) + 1:
                w = w[: -len(ending)]
                break
        for particle in _HANGUL_PARTICLES:
            if w.endswith(particle) and len(w) > len(particle) + 1:
                return w[: -len(particle)]
        return w
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or w[0].isdigit():
        return _CANON.get(w, w)
    if w.endswith("ceed"):  # succeed, proceed, exceed: no "-ed" to strip
        return _CANON.get(w, w)
    for suffix, repl, min_len in (
        ("ies", "y", 5),
        ("ied", "y", 5),
        ("ing", "", 6),
        ("edly", "", 7),
        ("ly", "", 6),
        ("ed", "", 5),
        ("es", "", 5),
        ("s", "", 4),
    ):
        if w.endswith(suffix) and len(w) >= min_len:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                return w
            w = w[: len(w) - len(suffix)] + repl
            if suffix in ("ed", "ing") and w.endswith("ell") and not w.endswith(_ELL_WORDS):
                w = w[:-1]  # British doubling: "cancelled", "travelling", "labelled"
            break
    if w.endswith("e") and len(w) >= 4:  # "live" as "lives", "case" as "cases"
        w = w[:-1]
    return _CANON.get(w, w)


# Paraphrases that factual answers use for what their sources say: each group matches as one
# word (by its first member). Small on purpose: near-synonyms only, no topical relatedness.
_SYNONYM_GROUPS = """establish found founded establishment foundation|author write wrote written
writer|born birth birthplace native|die died death|begin start began started commence
|buy purchase bought acquire acquired acquisition|big large huge enormous vast|small little tiny
|show demonstrate reveal indicate|help assist aid|end finish conclude terminate complete
|resident inhabitant|live reside|allow permit|forbid prohibit ban banned|leave depart
|connect link|receive obtain|film movie|job occupation profession|error mistake
|goal objective|answer reply response|shop store|rich wealthy|law legislation
|intelligent clever smart|choose select
|increase rise grow rose grew risen raise climb climbed
|decrease decline drop dropped dropping fall fell fallen reduce fewer shrink shrank shrunk
|year annual annually yearly
|locate situate base|company firm corporation business enterprise|car automobile vehicle
|high tall|doctor physician|famous renowned celebrated well-known|main primary principal chief head
|employee staff worker personnel employ|hire recruit|currently presently nowadays
|close shut|postpone delay defer|triple tripled threefold|double doubled twofold
|quadruple quadrupled fourfold|halve halved
|move relocate|marry married wed|create invent invented devise|win won|lose lost|award prize
|city town|nation country|kid child children|fast quick rapid|build construct built
|gründen gegründet|unternehmen firma gesellschaft|entreprise société
|fondé fondée fonder créé créée créer
|fundada fundado fundar fundó fundaron creada creado crear|設立 創立 成立 设立 创立
|mitarbeiter beschäftigte|employés salariés|empleados trabajadores|empresa compañía
|kilometre km kilometer kilometres kilometers|kilogram kg kilograms
|metre meter metres meters|centimetre cm centimeter centimetres centimeters|mile miles
|foot feet ft|hour hours hr hrs|minute minutes mins"""
_CANON: dict[str, str] = {}


def _build_synonyms() -> None:
    for group in _SYNONYM_GROUPS.replace("\n", " ").split("|"):
        words = group.split()
        if not words:
            continue
        head = stem(words[0])
        for word in words[1:]:
            key = stem(word)
            if key != head:
                _CANON.setdefault(key, head)


_build_synonyms()
stem.cache_clear()
_build_antonyms()


def canonical(text: str) -> str:
    """The text in Unicode's composed form (NFC), so a letter and its accent written as two
    code points ("e" + U+0302) read as the one letter ("\u00ea") the other side may write:
    "Angoul\u00eame" in an answer then matches it in a context that decomposes it. Read every
    text the offline judge compares through it, at its entry: offsets into the text read
    otherwise are lost.

    Args:
        text: Any text.

    Returns:
        The text, composed (the same string when it already is).

    Example:
        >>> canonical("Angoule\u0302me") == "Angoul\u00eame"
        True
    """
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def tokenize(text: str) -> list[Token]:
    """Tokenize text into words and numbers with offsets and simple flags.

    Args:
        text: Any text.

    Returns:
        The tokens in order. Punctuation is dropped.
    """
    tokens: list[Token] = []
    prev_end = 0
    for surface, start in _surfaces(text):
        gap = text[prev_end:start].rstrip(" \t")
        initial = not tokens or (bool(gap) and gap[-1] in _SENTENCE_BREAK)
        if initial and tokens and gap == "." and is_initial(tokens[-1].text):
            initial = False  # the stop of an initial ("Gerald R. Ford") ends no sentence
        prev_end = start + len(surface)
        token = _make_token(surface, initial, start)
        meaning = _phrasal_meaning(tokens[-1].stem, token.norm) if tokens else ""
        if meaning:  # "passed away" reads as "died"
            tokens[-1] = tokens[-1]._replace(stem=meaning)
            token = token._replace(is_content=False)
        elif tokens and _opens_with_may(tokens[-1].text, token.norm, number=token.is_number):
            tokens[-1] = tokens[-1]._replace(is_content=True)
        tokens.append(token)
    return tokens


def is_initial(surface: str) -> bool:
    """Whether a word is a name's initial: one upper-case letter but "I" ("R" of "Gerald R.
    Ford")."""
    return len(surface) == 1 and surface.isupper() and surface != "I"


#: What follows "May" opening a sentence when it is the month ("May is the wettest month",
#: "May 2020 saw ..."), not the modal ("May I ...", "May the best team win").
_AFTER_MONTH = frozenset(
    "is was has had saw sees brought brings began begins ended ends marked marks and".split()
)


def _opens_with_may(surface: str, following: str, *, number: bool) -> bool:
    """Whether a sentence-opening "May" is the month, from the word after it."""
    return surface == "May" and (number or following in _AFTER_MONTH)


#: Phrasal verbs read as the one word they mean, on both sides of a comparison.
_PHRASAL_VERBS = """pass passed passes passing away:die|set sets setting up:establish
|shut shuts shutting down:close|close closed closes closing down:close
|call called calls calling off:cancel|put puts putting off:postpone
|carry carried carries carrying out:conduct|find finds finding out:discover
|turn turned turns turning down:reject|go goes went gone going up:increase
|go goes went gone going down:decrease|take takes took taken taking over:acquire"""
_PHRASAL: dict[tuple[str, str], str] = {}
_PARTICLES = frozenset({"away", "up", "down", "off", "out", "over"})


def _phrasal_meaning(verb: str, particle: str) -> str:
    """The stem a verb stem and the particle after it mean together ("pass", "away": "die"),
    or "" when they are no phrasal verb (the particle test first: it runs for every word)."""
    return _PHRASAL.get((verb, particle), "") if particle in _PARTICLES else ""


#: Chinese words that carry no claim of their own once jieba has cut them out: particles,
#: determiners, measure words, prepositions and conjunctions ("该公司拥有500名员工": 该, 名).
_CHINESE_FUNCTION_WORDS = frozenset(
    "的 地 得 了 着 过 在 是 于 每 和 与 及 或 并 而 该 这 那 此 其 之 约 名 个 位 家 "
    "项 对 为 也 都 就 从 到 向 由 把 被 所 以 等 这个 那个 一个".split()
)
_SENTENCE_BREAK = frozenset('.!?:\n"“。！？')


@lru_cache(maxsize=131072)
def _word_info(surface: str) -> tuple[str, str, bool, bool]:
    lower = surface.lower().replace("’", "'")
    if surface[0] in _CJK_DIGITS or surface[0] == "十":
        value = cjk_numeral_value(surface)
        if value is not None and surface != "一":
            return str(value), str(value), True, True
    if _CJK_WEEKDAY_RE.fullmatch(surface):
        day = _JAPANESE_WEEKDAYS[surface[0]] if "曜" in surface else _CJK_WEEKDAYS[surface[-1]]
        return day, day, False, True
    if is_cjk(surface[0]):  # kana runs are particles and endings; ideographs carry content
        content = (
            not ("\u3040" <= surface[0] <= "\u309f")
            and not _is_negation_norm(lower)
            and lower not in _CHINESE_FUNCTION_WORDS
        )
        return lower, lower, False, content
    is_digit = surface[0].isdigit()
    norm = normalize_number(lower) if is_digit else lower
    if norm.startswith("non") and "-" in norm:  # "non-profit", "non - fiction"
        norm = _NON_RE.sub("non", norm, 1)
    number = is_digit or lower in _NUMBER_WORDS
    if lower in _NUMBER_WORDS:
        norm = _NUMBER_WORDS[lower]
    content = norm not in STOPWORDS and not _is_negation_norm(norm) and (number or len(norm) > 1)
    return norm, (norm if number else stem(norm)), number, content


def _make_token(surface: str, initial: bool, start: int) -> Token:
    norm, stemmed, number, content = _word_info(surface)
    content = content or (surface == "May" and not initial)  # the month (or a name), no modal
    return Token(surface, norm, stemmed, number, surface[0].isupper(), initial, start, content)


def content_stems(tokens: list[Token]) -> list[str]:
    """The stems of the content tokens, in order.

    Args:
        tokens: Tokens from `tokenize`.

    Returns:
        Stems of tokens that are neither stopwords nor negations.
    """
    return [t.stem for t in tokens if t.is_content]


def negation_count(tokens: list[Token]) -> int:
    """Count negation words ("not", "never", "no", "n't" contractions, ...).

    Args:
        tokens: Tokens from `tokenize`.

    Returns:
        How many tokens are negations.
    """
    skip = _not_negating(tokens, "sentence")
    return sum(1 for i, t in enumerate(tokens) if _is_negation(t) and i not in skip)


#: A negation's scope: the next `_SCOPE` words, auxiliaries aside ("has not been used for").
_SCOPE = 3
#: How many scopes' length a negation may still deny past its scope: the words of "has not
#: reported any toxic chemical spill" up to "spill", not those of "Without the flag it stops
#: and asks for confirmation" from "confirmation" on.
NEGATION_REACH = 2
_AUXILIARIES = frozenset("be been being have has had do does did".split())
#: Words saying that an event was called off: in the passive ("the concert was cancelled")
#: they negate the word before them, like a negation that follows its verb.
_CANCELLATIONS = frozenset(
    """cancelled canceled cancel cancels cancelling canceling cancellation cancelation
    scrapped shelved annulled abgesagt annulé annulée annulés annulées cancelado cancelada
    cancelados canceladas""".split()
)
_PASSIVE_AUX = frozenset("was were been be is are being got get gets wurde wurden".split())


def _is_negation(token: Token) -> bool:
    return _is_negation_norm(token.norm)


#: Comparatives that, after "no"/"not" and before "than", make a bound, not a negation:
#: "no more than 2,000 mg" says at most 2,000 mg (`ragjudge.offline.numbers` reads the bound).
_BOUND_COMPARATIVES = frozenset("more less fewer greater higher lower later earlier".split())


def _named_negations(surfaces: Sequence[str], initial: Sequence[bool]) -> set[int]:
    """The positions of negation words that are part of a name: written with a capital inside a
    run of capitalized words that starts after its sentence's first word ("toured with Never
    Shout Never", "a Nothing But Thieves song"). A run from the sentence's start may be a
    headline ("Obama Will Not Seek Office") and a word in capitals stresses ("Do NOT"), so
    both stay negations.

    Args:
        surfaces: The words as written.
        initial: Whether each word starts its sentence.
    """
    out: set[int] = set()
    k = 0
    while k < len(surfaces):
        end = k
        while (
            end < len(surfaces) and surfaces[end][:1].isupper() and not (end > k and initial[end])
        ):
            end += 1
        if end - k > 1 and not initial[k]:
            out.update(
                i
                for i in range(k, end)
                if _is_negation_norm(surfaces[i].lower()) and not surfaces[i].isupper()
            )
        k = max(end, k + 1)
    return out


#: Which negation words a name holds ("Never Shout Never"): those of a run of capitals that does
#: not start its sentence (a quote starts one), that does not start the text, or none.
NameReading = Literal["sentence", "text", "none"]


def _not_negating(tokens: Sequence[Token], names: NameReading) -> set[int]:
    """The positions of negation words that negate nothing: those opening a bound
    (`_bound_negations`) and those a name holds (`_named_negations`, as `names` reads them)."""
    skip = _bound_negations([t.norm for t in tokens])
    if names != "none":
        starts = [
            t.sentence_initial if names == "sentence" else not i for i, t in enumerate(tokens)
        ]
        skip |= _named_negations([t.text for t in tokens], starts)
    return skip


def _bound_negations(norms: Sequence[str]) -> set[int]:
    """The positions of the "no" / "not" that open a bound ("no more than", "not later than")."""
    return {
        i
        for i in range(len(norms) - 2)
        if norms[i] in ("no", "not")
        and norms[i + 1] in _BOUND_COMPARATIVES
        and norms[i + 2] == "than"
    }


def negation_scopes(
    tokens: list[Token],
    *,
    cancellations: bool = True,
    names: NameReading = "sentence",
    reach: int = 1,
) -> tuple[frozenset[str], frozenset[str]]:
    """Split content stems into negated ones and plain ones.

    A content token is negated when a negation word precedes it within a few tokens in the
    same sentence ("did not *reduce* mortality", "no *evidence*"), or when a passive
    cancellation follows it ("the *concert* was cancelled").

    Args:
        tokens: Tokens from `tokenize`.
        cancellations: Whether cancellation words negate too.
        names: Which negation words a name holds ("Never Shout Never"): `"sentence"`, those of
            a run of capitals that does not start its sentence (a quote starts one); `"text"`,
            those of one that does not start the text; `"none"`, none.
        reach: How many scopes' length a negation covers: a longer reach reads the words a
            negation may still deny past its scope ("has not reported any toxic chemical
            spill"), and the plain ones are what the text asserts outright.

    Returns:
        `(negated, plain)`: stems occurring in a negation's scope, stems occurring outside one.
    """
    negated: set[str] = set()
    plain: set[str] = set()
    remaining = 0
    last = previous = ""
    bounds = _not_negating(tokens, names)
    for i, token in enumerate(tokens):
        if token.sentence_initial:
            remaining = 0
            last = ""
        scope = (
            None
            if i in bounds
            else _negate(token.norm, previous, last, negated, plain, cancellations=cancellations)
        )
        previous = token.norm
        if scope is not None:
            remaining = scope * reach
            continue
        if token.is_content:
            (negated if remaining else plain).add(token.stem)
            last = token.stem
        if token.norm not in _AUXILIARIES:
            remaining = max(0, remaining - 1)
    return frozenset(negated), frozenset(plain)


def _negate(
    norm: str,
    previous: str,
    last: str,
    negated: set[str],
    plain: set[str],
    *,
    cancellations: bool = True,
) -> int | None:
    """Apply a negation or a cancellation word (None for any other word): the scope it opens
    over the next tokens; a suffix negation or a passive cancellation ("the launch was
    cancelled") negates the word before it instead."""
    if _is_negation_norm(norm):
        return _negate_before(norm, last, negated, plain)
    if not cancellations or norm not in _CANCELLATIONS:
        return None
    if previous in _PASSIVE_AUX and last:
        negated.add(last)
        plain.discard(last)
        return 0
    # the active voice is left alone: "cancelled his Barrow contract to join ..." calls off a
    # contract, not Barrow, and which word is its object's head needs a parser
    return None


def _negate_before(norm: str, last: str, negated: set[str], plain: set[str]) -> int:
    """Apply a negation: a suffix negation moves the word before it into its scope (and opens
    none after it); any other opens a scope over the next `_SCOPE` tokens, auxiliaries aside
    (returned)."""
    if not _is_suffix_negation(norm):
        return _SCOPE
    if last:
        negated.add(last)
        plain.discard(last)
    return 0


class SentenceProfile(NamedTuple):
    """What matching needs from one context sentence (no per-token objects: fast).

    Attributes:
        stems: Stems of all tokens, in order.
        content: Stems of the content tokens, in order.
        numbers: Normalized numbers.
        norms: Lower-cased forms of all tokens.
        negations: Number of negation words.
        negated: Content stems within a negation's scope.
        plain: Content stems outside any negation's scope.
        names: Stems of capitalized words inside the sentence (names, weekdays, months).
        lowered: Stems of content words written in lower case.
        asserted: The stems outside any negation's reach (`NEGATION_REACH`): what the
            sentence asserts outright (a word just past a negation's few-word scope may still
            be what it denies: "has not reported any toxic chemical spill").
    """

    stems: list[str]
    content: list[str]
    numbers: list[str]
    norms: list[str]
    negations: int
    negated: frozenset[str]
    plain: frozenset[str]
    names: frozenset[str] = frozenset()
    lowered: frozenset[str] = frozenset()
    asserted: frozenset[str] = frozenset()


def sentence_profile(sentence: str) -> SentenceProfile:
    """Profile one sentence of a context.

    Args:
        sentence: The sentence text.

    Returns:
        Its `SentenceProfile`.
    """
    stems: list[str] = []
    content: list[str] = []
    numbers: list[str] = []
    norms: list[str] = []
    negated: set[str] = set()
    plain: set[str] = set()
    asserted: set[str] = set()
    negations = remaining = wide = 0
    last = previous = ""
    names: set[str] = set()
    lowered: set[str] = set()
    first = ""
    surfaces = _surfaces(sentence)
    words = [surface for surface, _ in surfaces]
    bounds = _bound_negations([w.lower() for w in words])
    if any(w[:1].isupper() and _is_negation_norm(w.lower()) for w in words[1:]):
        # a quote starts a sentence here as in `tokenize`, so a name reads alike in both
        gaps = [sentence[a + len(w) : b] for (w, a), (_, b) in pairwise(surfaces)]
        opens = [True, *(g.rstrip(" \t")[-1:] in _SENTENCE_BREAK for g in gaps)]
        bounds |= _named_negations(words, opens)
    for i, (surface, _) in enumerate(surfaces):
        norm, stemmed, number, is_content = _word_info(surface)
        first = first or surface
        meaning = _phrasal_meaning(stems[-1], norm) if stems else ""
        if meaning:  # "passed away" reads as "died", as `tokenize` reads it
            verb = stems[-1]
            stems[-1] = meaning
            if content and content[-1] == verb:
                content[-1] = meaning
                (negated if verb in negated else plain).add(meaning)
                if verb in asserted:
                    asserted.add(meaning)
                last = meaning if last == verb else last
            is_content = False
        if i == 1 and not content and _opens_with_may(first, norm, number=number):
            content.append("may")  # the month opening the sentence
            plain.add("may")
        if is_content and surface[0].islower():
            lowered.add(stemmed)
        elif i and surface[0].isupper() and is_content:
            names.add(stemmed)
        stems.append(stemmed)
        norms.append(norm)
        if number:
            numbers.append(norm)
        scope = (  # the cheap test first: this runs for every word of every context
            _negate(norm, previous, last, negated, plain)
            if (_is_negation_norm(norm) or norm in _CANCELLATIONS) and i not in bounds
            else None
        )
        previous = norm
        if scope is not None:
            negations += 1
            remaining, wide = scope, scope * NEGATION_REACH
            continue
        if is_content:
            content.append(stemmed)
            (negated if remaining else plain).add(stemmed)
            if not wide:
                asserted.add(stemmed)
            last = stemmed
        if wide and norm not in _AUXILIARIES:  # the reach outlasts the scope
            wide -= 1
            if remaining:
                remaining -= 1
    return SentenceProfile(
        stems,
        content,
        numbers,
        norms,
        negations,
        frozenset(negated),
        frozenset(plain),
        frozenset(names),
        frozenset(lowered),
        frozenset(asserted),
    )


_ABBREVIATIONS = (
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "inc", "ltd",
    "co", "corp", "no", "fig", "approx", "u.s", "u.k", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "mt", "gen", "gov", "sen", "rep", "col", "lt",
)  # fmt: skip
_SENT_END_RE = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+)|[。！？]+[」』”）)]*|\n+")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split text into sentences, returned as character spans.

    Splits after `.`, `!`, `?` followed by white space (not after common abbreviations,
    single initials or decimal points) and at line breaks.

    Args:
        text: Any text.

    Returns:
        `(start, end)` spans of the non-empty sentences, stripped of surrounding white space.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENT_END_RE.finditer(text):
        end = match.end()
        if match.group(0)[0] == "." and _is_abbreviation(text, match.start()):
            continue
        spans.append((start, end))
        start = end
    spans.append((start, len(text)))
    return [s for s in (_strip_span(text, a, b) for a, b in spans) if s[1] > s[0]]


_MONTH_AFTER_RE = re.compile(
    r"\s+(?:januar|jänner|februar|märz|marts|mars|april|mai|juni|juli|august|september|oktober|"
    r"november|dezember|december|desember)\b",
    re.IGNORECASE,
)


def _is_abbreviation(text: str, dot: int) -> bool:
    word_match = re.search(r"([\w.]+)$", text[max(0, dot - 12) : dot])
    if not word_match:
        return False
    word = word_match.group(1).lower()
    if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
        return True
    if word.isdigit() and len(word) <= 2 and _MONTH_AFTER_RE.match(text, dot + 1):
        return True  # a German or Nordic date: "am 3. Februar", "den 1. mars"
    after = text[dot + 1 : dot + 3].lstrip()
    return bool(after) and after[0].islower()


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


_FILLER_RE = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|yes|no|hi|hello|thanks|thank you|great question|"
    r"i hope (?:this|that) helps|hope (?:this|that) helps|let me know|feel free|"
    r"here (?:is|are)|in summary|in conclusion|to summarize|overall)\b[^\w]*$",
    re.IGNORECASE,
)
_CLAUSE_RE = re.compile(r";\s+|:\s+(?=[A-Z])|,\s+(?:but|while|whereas|although)\s+")
_MAX_CLAUSE_TOKENS = 4


@lru_cache(maxsize=65536)
def is_filler(sentence: str) -> bool:
    """Whether a sentence is pure filler with nothing to verify.

    Args:
        sentence: One sentence or clause.

    Returns:
        True for empty sentences, sentences without content words, and stock phrases such as
        "I hope this helps!".
    """
    text = sentence.strip()
    if not text or _FILLER_RE.match(text):
        return True
    return not any(t.is_content for t in tokenize(text))


def segment_statements(answer: str) -> list[tuple[int, int]]:
    """Split an answer into atomic-ish statements (sentences, then clauses).

    Sentences are split further at semicolons, at colons that introduce a new clause and at
    contrastive conjunctions (", but", ", while", ...), when both sides are long enough to
    stand alone. Filler statements are dropped.

    Args:
        answer: The answer text.

    Returns:
        `(start, end)` character spans into `answer`, in order.
    """
    spans: list[tuple[int, int]] = []
    for start, end in split_sentences(answer):
        for a, b in _split_clauses(answer, start, end):
            if not is_filler(answer[a:b]):
                spans.append((a, b))
    return spans


def _split_clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    cursor = start
    for match in _CLAUSE_RE.finditer(text, start, end):
        left = text[cursor : match.start()]
        right = text[match.end() : end]
        if len(tokenize(left)) >= _MAX_CLAUSE_TOKENS and len(tokenize(right)) >= _MAX_CLAUSE_TOKENS:
            pieces.append(_strip_span(text, cursor, match.start()))
            cursor = match.end()
    pieces.append(_strip_span(text, cursor, end))
    return [p for p in pieces if p[1] > p[0]]


def _build_phrasal() -> None:
    for chunk in _PHRASAL_VERBS.replace("\n", "").split("|"):
        words, meaning = chunk.split(":")
        *forms, particle = words.split()
        for form in forms:
            _PHRASAL[(stem(form), particle)] = stem(meaning)


_build_phrasal()
