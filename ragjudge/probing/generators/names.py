"""Must-fail kinds that change who or where: another name of the same type, two names swapped
around one verb, a claim given to another speaker.

A name's type is read from words around it in the row's own passages, never guessed: a title
or a role noun before it or a verb of saying beside it (a person), a place word or a gazetteer
entry after `in` / `at` / `from` (a place), an organization word in it (an organization). A
name whose type cannot be told, or that reads as two types, is left alone.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import (
    candidate_sentences,
    content_words,
    language,
    names,
    replace_once,
    sentences,
    words,
)

__all__ = [
    "GAZETTEER",
    "EntityMap",
    "cached_sentences",
    "entity_map",
    "find_names",
    "key_words",
    "place_level",
]

# --- word lists -------------------------------------------------------------------------------

#: Titles before a person's name (en, de, fr, es).
_TITLES = {
    "mr", "mrs", "ms", "miss", "dr", "prof", "professor", "sir", "dame", "lady", "lord", "king",
    "queen", "prince", "princess", "president", "senator", "governor", "general", "colonel",
    "captain", "judge", "justice", "pope", "rev", "reverend", "bishop", "archbishop", "emperor",
    "empress", "sheikh", "chancellor", "premier", "mayor", "rep", "sen", "gov", "gen", "lt",
    "sgt", "herr", "frau", "monsieur", "madame", "mme", "mlle", "señor", "señora", "sr", "sra",
    "don", "doña", "duke", "duchess", "count", "countess",
}  # fmt: skip

#: Role nouns written just before a person's name ("actor Tom Hanks").
_ROLES = {
    "actor", "actress", "singer", "songwriter", "director", "writer", "author", "player",
    "coach", "footballer", "musician", "politician", "painter", "poet", "novelist", "composer",
    "guitarist", "drummer", "rapper", "comedian", "journalist", "producer", "screenwriter",
    "filmmaker", "artist", "scientist", "physicist", "chemist", "economist", "historian",
    "philosopher", "ceo", "chairman", "chairwoman", "founder", "spokesman", "spokeswoman",
    "spokesperson", "minister", "secretary", "lawyer", "attorney", "doctor", "manager",
    "striker", "midfielder", "defender", "goalkeeper", "quarterback", "pitcher", "boxer",
    "wrestler", "tennis", "golfer", "cyclist", "dancer", "model", "architect", "inventor",
    "entrepreneur", "businessman", "businesswoman", "photographer", "sculptor", "pianist",
    "violinist", "conductor", "bassist", "vocalist", "frontman", "teammate", "wife", "husband",
    "son", "daughter", "brother", "sister", "father", "mother", "uncle", "aunt", "cousin",
    "nephew", "niece", "grandson", "granddaughter", "schauspieler", "sängerin", "sänger",
    "acteur", "actrice", "chanteur", "chanteuse", "cantante", "escritor", "escritora",
}  # fmt: skip

#: Common given names: a run of two or three words opening with one is a person's name.
_GIVEN = {
    "james", "john", "robert", "michael", "william", "david", "richard", "joseph", "thomas",
    "charles", "christopher", "daniel", "matthew", "anthony", "donald", "steven", "paul",
    "andrew", "joshua", "kenneth", "kevin", "brian", "george", "timothy", "ronald", "edward",
    "jason", "jeffrey", "ryan", "jacob", "gary", "nicholas", "eric", "jonathan", "stephen",
    "larry", "justin", "scott", "brandon", "benjamin", "samuel", "gregory", "frank",
    "alexander", "raymond", "patrick", "jack", "dennis", "jerry", "tyler", "aaron", "henry",
    "adam", "peter", "nathan", "douglas", "zachary", "kyle", "walter", "harold", "jeremy",
    "ethan", "carl", "keith", "roger", "gerald", "terry", "sean", "arthur", "noah", "lawrence",
    "jesse", "joe", "bryan", "billy", "albert", "dylan", "bruce", "willie", "gabriel", "alan",
    "juan", "wayne", "ralph", "roy", "eugene", "randy", "vincent", "russell", "bobby", "philip",
    "johnny", "mary", "patricia", "jennifer", "linda", "elizabeth", "barbara", "susan",
    "jessica", "sarah", "karen", "nancy", "lisa", "betty", "margaret", "sandra", "ashley",
    "kimberly", "emily", "donna", "michelle", "dorothy", "carol", "amanda", "melissa",
    "deborah", "stephanie", "rebecca", "sharon", "laura", "cynthia", "kathleen", "amy",
    "angela", "shirley", "anna", "brenda", "pamela", "emma", "nicole", "helen", "samantha",
    "katherine", "christine", "debra", "rachel", "carolyn", "janet", "catherine", "maria",
    "heather", "diane", "ruth", "julie", "olivia", "joyce", "kelly", "lauren", "christina",
    "joan", "evelyn", "judith", "megan", "andrea", "cheryl", "hannah", "jacqueline", "martha",
    "gloria", "teresa", "ann", "sara", "frances", "kathryn", "janice", "jean", "abigail",
    "alice", "julia", "judy", "sophia", "denise", "doris", "marilyn", "danielle", "beverly",
    "isabella", "theresa", "diana", "natalie", "brittany", "marie", "kayla", "alexis", "lori",
    "tom", "jim", "bill", "bob", "mike", "dave", "steve", "tony", "chris", "nick", "ben", "sam",
    "dan", "matt", "tim", "greg", "jeff", "ted", "ed", "fred", "harry", "hans", "jean-pierre",
    "pierre", "jacques", "françois", "michel", "philippe", "alain", "klaus", "jürgen",
    "wolfgang", "stefan", "andreas", "karl", "carlos", "josé", "luis", "jorge", "pedro",
    "miguel", "antonio", "manuel", "francisco", "giuseppe", "giovanni", "marco", "luca", "ivan",
    "sergei", "vladimir", "dmitri", "mohammed", "muhammad", "ahmed", "ali", "hassan", "omar",
    "raj", "amit", "hiroshi", "kenji", "elena", "sofia", "lucia", "carmen", "ana", "isabel",
    "claire", "sophie", "julien", "nicolas",
}  # fmt: skip

#: Verbs of saying, by language: a name right before (or, for `_SAID_BEFORE`, right after)
#: one of them is a speaker.
_SAYING = {
    "en": (
        r"said|says|told|stated|explained|argued|argues|insisted|insists|warned|warns|"
        r"testified|asserted|asserts"
    ),
    "de": r"sagte|sagt|erklärte|erklärt|betonte|betont|meinte|meint|behauptete|behauptet",
    "fr": (
        r"a déclaré|a dit|a affirmé|a expliqué|a estimé|a souligné|déclare|affirme|explique|"
        r"estime|souligne|dit"
    ),
    "es": r"dijo|afirmó|declaró|explicó|aseguró|señaló|sostuvo|dice|afirma|asegura|explica",
}
#: Verbs of saying that are other verbs too ("added the final goal"): a speaker's only when a
#: comma, a full stop, a quote or "that" follows.
_SAYING_WEAK = (
    r"added|adds|wrote|writes|claimed|claims|noted|notes|reported|reports|announced|"
    r"believes|believed|maintained|maintains|concluded|suggested|suggests|ajoute|a ajouté|"
    r"fügte hinzu|schrieb|añadió|escribió|agregó"
)
#: Saying verbs after which a name is the speaker ('"...," said Smith').
_SAID_BEFORE = r"said|says|sagte|sagt|erklärte|a déclaré|a dit|dijo|afirmó|declaró|explicó"
#: "According to X" and its kin: the name after is the source.
_ACCORDING = r"according to|laut|zufolge|selon|d'après|d’après|según|de acuerdo con"

#: Words that make a name an organization, by class (two organizations swap within a class).
_ORG_WORDS: dict[str, str] = {
    **dict.fromkeys(
        ("university", "college", "school", "institute", "academy", "universität", "université",
         "universidad", "hochschule", "école", "escuela"), "education"),
    **dict.fromkeys(
        ("inc", "corp", "corporation", "company", "co", "ltd", "llc", "plc", "group", "gmbh",
         "ag", "sa", "holdings", "industries", "enterprises", "technologies", "systems",
         "motors", "airlines", "airways", "records", "studios", "pictures", "entertainment",
         "media", "bank", "partners", "labs", "pharmaceuticals"), "company"),
    **dict.fromkeys(
        ("party", "parti", "partei", "partido"), "party"),
    **dict.fromkeys(("council", "committee", "commission", "board"), "body"),
    **dict.fromkeys(
        ("agency", "ministry", "department", "office", "bureau", "authority"), "government"),
    **dict.fromkeys(
        ("association", "foundation", "society", "federation", "union", "organization",
         "organisation", "institution"), "association"),
    **dict.fromkeys(("league", "conference"), "league"),
    **dict.fromkeys(("fc", "club", "united", "city fc"), "club"),
    **dict.fromkeys(
        ("times", "post", "journal", "herald", "tribune", "gazette", "magazine",
         "telegraph", "guardian", "observer", "chronicle"), "press"),
}  # fmt: skip

#: Words that open a place right after them ("born in X"): the name after is a place.
_PLACE_CUE = re.compile(
    r"(?:born|located|based|headquartered|situated|settled|lived|lives|died|raised|grew up|"
    r"buried|moved|relocated|emigrated|immigrated|stationed|geboren|gestorben|né|née|nació|"
    r"nacido|nacida|ubicado|ubicada|situé|située)\s+(?:in|at|to|near|en|à|in der|im)\s+$|"
    r"(?:city|town|village|capital|suburb|province|state|county|region|port|island) of\s+$",
    re.IGNORECASE,
)
#: Prepositions of place: a gazetteer place must stand after one in the edited sentence.
_PLACE_PREP = re.compile(
    r"(?:\b(?:in|at|from|near|to|into|across|outside|throughout|around|towards|toward|via|"
    r"of|aus|nach|bei|im|à|en|de|desde|hacia)\s+(?:the\s+)?)$",
    re.IGNORECASE,
)

#: Places by level; names of one place under several words are one group (never swapped).
GAZETTEER: dict[str, str] = {
    **dict.fromkeys(
        ("France", "Germany", "Italy", "Spain", "Portugal", "Belgium", "Netherlands",
         "Switzerland", "Austria", "Poland", "Sweden", "Norway", "Denmark", "Finland",
         "Iceland", "Ireland", "Greece", "Turkey", "Russia", "Ukraine", "Belarus", "Romania",
         "Bulgaria", "Hungary", "Serbia", "Croatia", "Slovenia", "Slovakia", "Albania",
         "Lithuania", "Latvia", "Estonia", "Canada", "Mexico", "Brazil", "Argentina", "Chile",
         "Peru", "Colombia", "Venezuela", "Ecuador", "Bolivia", "Uruguay", "Paraguay", "Cuba",
         "Jamaica", "Haiti", "China", "Japan", "India", "Pakistan", "Bangladesh", "Nepal",
         "Indonesia", "Malaysia", "Singapore", "Thailand", "Vietnam", "Cambodia", "Philippines",
         "Australia", "Iran", "Iraq", "Syria", "Israel", "Lebanon", "Jordan", "Egypt", "Libya",
         "Tunisia", "Algeria", "Morocco", "Nigeria", "Ghana", "Kenya", "Ethiopia", "Somalia",
         "Sudan", "Uganda", "Tanzania", "Zimbabwe", "Zambia", "Angola", "Mozambique",
         "Afghanistan", "Kazakhstan", "Uzbekistan", "Mongolia", "Sri Lanka", "Saudi Arabia",
         "Qatar", "Kuwait", "Yemen", "Oman", "Cyprus", "Malta", "Luxembourg", "Monaco",
         "North Korea", "South Korea", "New Zealand", "South Africa", "Taiwan", "Myanmar",
         "Senegal", "Cameroon", "Rwanda", "Madagascar", "Namibia", "Botswana", "Panama",
         "Costa Rica", "Honduras", "Guatemala", "Nicaragua", "El Salvador"), "country"),
    **dict.fromkeys(
        ("Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
         "Delaware", "Florida", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
         "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota",
         "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire",
         "New Jersey", "New Mexico", "North Carolina", "North Dakota", "Ohio", "Oklahoma",
         "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota",
         "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "West Virginia", "Wisconsin",
         "Wyoming"), "us_state"),
    **dict.fromkeys(
        ("Paris", "Lyon", "Marseille", "Berlin", "Munich", "Hamburg", "Cologne", "Frankfurt",
         "Rome", "Milan", "Naples", "Florence", "Venice", "Turin", "Madrid", "Barcelona",
         "Seville", "Valencia", "Lisbon", "Porto", "Amsterdam", "Rotterdam", "Brussels",
         "Vienna", "Zurich", "Geneva", "Prague", "Warsaw", "Krakow", "Budapest", "Bucharest",
         "Athens", "Istanbul", "Ankara", "Moscow", "Kiev", "Kyiv", "Stockholm", "Oslo",
         "Copenhagen", "Helsinki", "Dublin", "London", "Manchester", "Liverpool", "Birmingham",
         "Glasgow", "Edinburgh", "Leeds", "Bristol", "Oxford", "Cambridge", "Toronto",
         "Montreal", "Vancouver", "Ottawa", "Chicago", "Los Angeles", "San Francisco",
         "Boston", "Philadelphia", "Houston", "Dallas", "Austin", "Miami", "Atlanta", "Seattle",
         "Denver", "Detroit", "Phoenix", "Las Vegas", "San Diego", "Nashville", "Memphis",
         "New Orleans", "Baltimore", "Pittsburgh", "Cleveland", "Minneapolis", "Portland",
         "Brooklyn", "Tokyo", "Osaka", "Kyoto", "Beijing", "Shanghai", "Hong Kong", "Seoul",
         "Bangkok", "Jakarta", "Manila", "Mumbai", "Delhi", "New Delhi", "Bangalore",
         "Kolkata", "Chennai", "Karachi", "Lahore", "Dhaka", "Tehran", "Baghdad", "Damascus",
         "Beirut", "Jerusalem", "Tel Aviv", "Cairo", "Dubai", "Riyadh", "Nairobi", "Lagos",
         "Johannesburg", "Cape Town", "Sydney", "Melbourne", "Brisbane", "Perth", "Auckland",
         "Buenos Aires", "Rio de Janeiro", "São Paulo", "Sao Paulo", "Lima", "Bogotá",
         "Bogota", "Santiago", "Caracas", "Havana", "Mexico City", "Guadalajara", "Montevideo",
         "Marrakesh", "Casablanca", "Tunis", "Algiers", "Addis Ababa", "Kabul", "Islamabad",
         "Hanoi", "Taipei", "Kuala Lumpur", "Stuttgart", "Düsseldorf", "Dresden", "Leipzig",
         "Bordeaux", "Toulouse", "Nice", "Strasbourg", "Lille", "Nantes", "Bilbao", "Málaga",
         "Salzburg", "Basel", "Bern", "Antwerp", "Ghent", "Belfast", "Cardiff", "Sheffield",
         "Newcastle", "Nottingham", "Hollywood", "Honolulu", "Anchorage", "Sacramento",
         "Indianapolis", "Milwaukee", "Cincinnati", "Orlando", "Tampa", "Charlotte", "Calgary",
         "Edmonton", "Winnipeg", "Quebec City", "Oakland", "St. Louis", "Kansas City",
         "Salt Lake City", "Albuquerque", "Tucson", "Sarajevo", "Belgrade", "Zagreb", "Sofia",
         "Riga", "Vilnius", "Tallinn", "Minsk", "Reykjavik"), "city"),
}  # fmt: skip

#: Names of one place (or of a place and what holds it) that must never be swapped.
_ALIASES = (
    {"United States", "USA", "US", "U.S", "U.S.", "America", "United States of America"},
    {"United Kingdom", "UK", "U.K", "Britain", "Great Britain", "England", "Scotland", "Wales"},
    {"Netherlands", "Holland"},
    {"Kiev", "Kyiv"},
    {"Sao Paulo", "São Paulo"},
    {"Bogota", "Bogotá"},
    {"Delhi", "New Delhi"},
    {"Brooklyn", "New York"},
    {"Hollywood", "Los Angeles"},
)

#: Words that make a name a place or a building, never a person ("Fort Harney").
_SITE_WORDS = {
    "fort", "lake", "river", "mount", "mountain", "mountains", "valley", "county", "island",
    "islands", "bay", "street", "avenue", "road", "park", "station", "stadium", "arena",
    "airport", "bridge", "hall", "church", "cathedral", "castle", "hotel", "hospital", "tower",
    "square", "beach", "creek", "canyon", "desert", "sea", "ocean", "gulf", "strait", "harbor",
    "harbour", "palace", "temple", "abbey", "priory", "center", "centre", "theatre", "theater",
    "building", "house", "garden", "gardens", "zoo", "museum", "library", "forest", "falls",
    "show", "film", "movie", "album", "band", "series", "prize", "award", "awards", "cup",
    "trophy", "act", "war", "day", "festival", "games", "championship", "tour", "hill",
    "records", "press", "books", "radio", "channel", "network", "project", "program",
    "programme", "fund", "trust", "medal", "report", "manifesto", "regarding",
}  # fmt: skip

#: Capitalized words that open a run without being part of the name.
_LEADING = {
    "the", "a", "an", "in", "at", "on", "for", "from", "by", "with", "after", "before",
    "during", "when", "if", "while", "since", "and", "but", "or", "as", "to", "of", "under",
    "however", "meanwhile", "according", "although", "though", "also", "then", "today",
    "yesterday", "both", "his", "her", "their", "its", "our", "my", "this", "that", "these",
    "those", "some", "many", "most", "all", "every", "each", "der", "die", "das", "den", "dem",
    "ein", "eine", "im", "le", "la", "les", "un", "une", "el", "los", "las", "en", "laut",
    "selon", "según", "it", "he", "she", "they", "we", "i", "you", "there", "here", "what",
    "who", "which", "why", "how", "where", "one", "two", "three", "despite", "unlike",
    "like", "about", "over", "among", "between", "into", "through", "until", "upon", "no",
    "not", "yes", "so", "because", "once", "now", "later", "first", "last", "around",
    "across", "against", "toward", "towards", "within", "without", "near", "inside", "outside",
    "beyond", "behind", "below", "above", "along", "per", "even", "only", "just",
}  # fmt: skip

#: Capitalized words that are never a name on their own (months, days, pronouns, ...).
_NOT_NAMES = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "i", "god", "internet", "web", "english", "french", "german",
    "spanish", "chinese", "american", "british", "european", "christmas", "easter", "tv",
    "ok", "okay", "mr", "mrs", "dr", "ms", "re", "ii", "iii", "iv",
}  # fmt: skip

#: Words that stand in many sentences and tell nothing about what one says.
_COMMON = {
    "was", "were", "has", "had", "have", "been", "being", "his", "her", "their", "its", "this",
    "that", "these", "those", "which", "who", "whom", "from", "but", "also", "not", "they",
    "them", "she", "him", "there", "than", "then", "into", "about", "after", "before", "over",
    "will", "would", "can", "could", "may", "might", "one", "two", "first", "new", "more",
    "most", "such", "when", "where", "while", "other", "some", "all", "any", "said", "says",
    "our", "your", "you", "are", "what", "only", "just", "out", "very", "well",
}  # fmt: skip


# --- names and their types --------------------------------------------------------------------


def cached_sentences(row: GoldRecord, *, min_words: int = 5, max_words: int = 40) -> list[str]:
    """`candidate_sentences(row)` read once per set of passages (several kinds, and rows that
    share passages, ask for them), then kept to `min_words`-`max_words` words."""
    found = _cached_sentences(tuple(row.contexts))
    return [s for s, n in found if min_words <= n <= max_words]


@functools.lru_cache(maxsize=8192)
def _cached_sentences(contexts: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    row = GoldRecord(id="", contexts=list(contexts), answer="")
    return tuple((s, len(words(s))) for s in candidate_sentences(row))


def key_words(text: str) -> set[str]:
    """The lowercased words of `text` that tell what it says (no function words, no words
    that stand in any sentence)."""
    return content_words(text) - _COMMON


def place_level(name: str) -> str | None:
    """The gazetteer's level of `name` (`country`, `us_state`, `city`), None if not listed."""
    return GAZETTEER.get(name)


def _alias_group(name: str) -> int | None:
    for i, group in enumerate(_ALIASES):
        if name in group:
            return i
    return None


def find_names(sentence: str) -> list[tuple[int, int, str]]:
    """Names in `sentence` as `(start, end, text)`: capitalized runs (the first word too),
    with a leading function word or title and a trailing possessive cut off; runs that are
    only a month, a day, a pronoun or a number are dropped.

    Example:
        >>> find_names("In 2001, President Ann Lee's office moved to New York.")
        [(19, 26, 'Ann Lee'), (45, 53, 'New York')]
    """
    return list(_find_names(sentence))


_OPENER = re.compile(r"[:\"“‘(—–;]\s*$|\s[-–]\s*$")
_POSSESSIVE = re.compile(r"['’]s?$")
_LETTERS = re.compile(r"[^\W\d_]{2}")
_RUN_ON = re.compile(r"[a-zà-ÿ]{3,}[A-ZÀ-Þ]|[a-zà-ÿ]{2,}\.[A-ZÀ-Þa-z]|[a-zà-ÿ]\d")


@functools.lru_cache(maxsize=65536)
def _find_names(sentence: str) -> tuple[tuple[int, int, str], ...]:
    found = []
    for start, end, text in names(sentence, skip_first=False):
        parts = text.split(" ")
        opening = not sentence[:start].strip() or bool(_OPENER.search(sentence[:start]))
        while parts and (
            (opening and parts[0].lower() in _LEADING)
            or (len(parts) > 1 and parts[0].lower().rstrip(".") in _TITLES | _ROLES)
        ):
            start += len(parts[0]) + 1
            parts = parts[1:]
        while parts and parts[-1].lower() in {"of", "the", "de", "von", "van", "y", "la", "le"}:
            parts = parts[:-1]
        if not parts:
            continue
        text = " ".join(parts)
        possessive = _POSSESSIVE.search(text)
        if possessive:
            text = text[: possessive.start()]
        end = start + len(text)
        if sentence[start:end] != text or text.lower() in _NOT_NAMES:
            continue
        if not _LETTERS.search(text) or not _name_like(parts):
            continue
        found.append((start, end, text))
    return tuple(found)


#: Words of page furniture, never of a name ("Related News", "View Media Page").
_FURNITURE = {
    "latest", "related", "recent", "read", "share", "view", "page", "home", "menu",
    "search", "skip", "click", "copyright", "subscribe", "follow", "posted", "comments",
    "reply", "login", "sign", "log", "facts", "quick", "top", "next", "previous", "back",
    "contact", "privacy", "terms", "cookie", "cookies", "newsletter", "email", "print",
    "video", "photo", "image", "download", "advertisement", "sponsored", "updated", "local",
}  # fmt: skip


def _name_like(parts: list[str]) -> bool:
    """Whether the words of a capitalized run read as one name, not page furniture or
    several names run together."""
    if len(parts) > 5 or parts[0].lower() in _NOT_NAMES:
        return False
    lowered = [p.lower().strip(".") for p in parts]
    if any(w in _FURNITURE for w in lowered) or len(set(lowered)) < len(lowered):
        return False
    if len(parts) > 1 and re.fullmatch(r"[A-Z]\.?", parts[-1]):
        return False  # a name cut after an initial ("Steven R")
    if len(parts) > 1 and lowered[-1] in _TITLES:
        return False  # a title cut off its name ("Las Vegas Sen")
    if any(re.search(r"['’]s$", p) for p in parts[:-1]):
        return False  # two names ("Japan's Rakuten")
    if any(w in _NOT_NAMES and w not in ("may", "june", "april", "august") for w in lowered):
        return False  # a month, a day or a language run into a name ("Phillips September")
    if any(_RUN_ON.search(p) for p in parts):
        return False
    if any(p in ("The", "A", "An") for p in parts[1:]):
        return False
    if "of" in lowered[1:]:
        joined = " ".join(parts)
        return lowered[0] in _ORG_WORDS or joined in GAZETTEER or _alias_group(joined) is not None
    return True


@dataclass
class EntityMap:
    """The typed names of a row's passages.

    Attributes:
        types: Each name's type(s): `person`, `place:<level>`, `org:<class>`.
        speakers: Names that stand as the speaker of a verb of saying or after
            "according to".
        where: The indexes (into `sentences`) of the sentences each name stands in.
        sentences: The passages' sentences, in order.
    """

    types: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    speakers: set[str] = field(default_factory=set)
    where: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    sentences: list[str] = field(default_factory=list)
    inside: set[str] = field(default_factory=set)
    _keys: dict[int, set[str]] = field(default_factory=dict)
    _lower: set[str] | None = None

    def lowercase(self) -> set[str]:
        """The words the passages write in lower case (cached)."""
        if self._lower is None:
            self._lower = {w for s in self.sentences for w in words(s) if w.islower()}
        return self._lower

    def keys(self, i: int) -> set[str]:
        """The telling words of sentence `i` (cached)."""
        if i not in self._keys:
            self._keys[i] = key_words(self.sentences[i])
        return self._keys[i]

    def type_of(self, name: str) -> str | None:
        """The one type `name` was read as; None when none or several."""
        found = self.types.get(name, set())
        return next(iter(found)) if len(found) == 1 else None

    def near(self, name: str, claim: str, *, exclude: Iterable[str] = ()) -> bool:
        """Whether a sentence naming `name` shares two or more telling words with `claim`
        (not counting the words of `exclude`): then `name` may well say or do it too."""
        claim_words = key_words(claim) - {w for x in exclude for w in key_words(x)}
        claim_words -= key_words(name)
        return any(len(claim_words & self.keys(i)) >= 2 for i in self.where.get(name, ()))


def _org_class(name: str) -> str | None:
    """The class of an organization's name: its last word, or its first before `of`
    ("University of Oxford"), is an organization word; and it has a word besides."""
    parts = name.lower().replace(".", "").split()
    if len(parts) < 2:
        return None
    if parts[-1] in _ORG_WORDS:
        return _ORG_WORDS[parts[-1]]
    if parts[0] in _ORG_WORDS and parts[1] in ("of", "de", "für", "du", "del"):
        return _ORG_WORDS[parts[0]]
    return None


_SPEAKER_AFTER = re.compile(
    rf"\s*,?\s+(?:(?:{'|'.join(_SAYING.values())})\b|(?:{_SAYING_WEAK})(?:\s*[,.:\"“]|\s+that\b))"
)
#: After a name that follows its verb ('"...," said Smith'): the sentence's end, a comma, or
#: the words that go on about the saying.
_SPEAKER_END = re.compile(
    r"\s*(?:[,.;:!?\"”)]|$)|\s+(?:on|in|at|during|last|this|yesterday|today|when|after|"
    r"before|who|am|le|el|in einem)\b"
)
_SPEAKER_BEFORE = re.compile(rf"[,\"”’'»]\s*(?:{_SAID_BEFORE})\s+$")
_SOURCE_BEFORE = re.compile(rf"(?:^|\b)(?i:{_ACCORDING})\s+$")


def _is_speaker(sentence: str, start: int, end: int) -> bool:
    """Whether the name at `start:end` is the speaker of a verb of saying, or the source
    after "according to" (or before "zufolge")."""
    after = sentence[end : end + 30]
    if _SPEAKER_AFTER.match(after) or after.startswith(" zufolge"):
        return True
    if _SOURCE_BEFORE.search(sentence[max(0, start - 30) : start]):
        return True
    return bool(
        _SPEAKER_BEFORE.search(sentence[max(0, start - 30) : start]) and _SPEAKER_END.match(after)
    )


#: Nouns after a name that make it the name of a thing ("Harry Potter star").
_MODIFIES = re.compile(
    r"\s+(?:star|stars|film|films|series|book|books|fans|franchise|movie|movies|novel|novels|"
    r"character|characters|school|middle|high|university|college|museum|award|prize|era|"
    r"administration|campaign|family|estate|foundation|team|house|building|street|road|show|"
    r"album|song|brand|company|group|trophy|cup|memorial|center|centre|institute)\b"
)


#: After a person's name: "(born", "was born", a life's span "(1883–1967)" or "(1950–)".
_BORN = re.compile(
    r"\s*(?:\(\s*born\b|,?\s+(?:was|is)\s+born\b|\(\s*(?:c\.\s*)?\d{4}\s*[–-]\s*(?:\d{4})?\s*\))"
)


def _person_cue(sentence: str, start: int, end: int) -> bool:
    prev = re.search(r"([^\W\d_]+)\.?\s+$", sentence[max(0, start - 30) : start])
    if prev and (prev.group(1).lower() in _TITLES or prev.group(1) in _ROLES):
        return True  # a title ("Dr.", "President"), or a role in lower case ("actor")
    after = sentence[end : end + 30]
    return bool(_BORN.match(after))


def entity_map(row: GoldRecord) -> EntityMap:
    """The names of `row`'s passages with the types their words give them (one reading per
    set of passages, kept for the rows that share it).

    Example:
        >>> row = GoldRecord(id="r", contexts=["Dr. Ann Lee was born in Paris. Oxford University "
        ...     "said so."], answer="x")
        >>> found = entity_map(row)
        >>> found.type_of("Ann Lee"), found.type_of("Paris"), found.type_of("Oxford University")
        ('person', 'place:city', 'org:education')
    """
    return _entity_map(tuple(row.contexts))


@functools.lru_cache(maxsize=8192)
def _entity_map(contexts: tuple[str, ...]) -> EntityMap:
    out = _read_names(contexts)
    lower = out.lowercase()
    for name, kinds in out.types.items():
        if "person" in kinds and all(w.lower() in lower for w in name.split()):
            kinds.discard("person")  # common words ("Sales Agents"), not a name
        if "person" in kinds and any(o.startswith(f"{name} ") for o in out.where):
            kinds.discard("person")  # the head of a longer name ("Thomas More University")
    return out


def _read_names(contexts: tuple[str, ...]) -> EntityMap:
    out = EntityMap()
    for passage in contexts:
        for line in passage.splitlines():
            out.sentences += sentences(" ".join(line.split()))
    for i, sentence in enumerate(out.sentences):
        for start, end, name in find_names(sentence):
            out.where[name].add(i)
            if sentence[:start].strip() and not _OPENER.search(sentence[:start]):
                out.inside.add(name)
            org = _org_class(name)
            level = place_level(name)
            if org:
                out.types[name].add(f"org:{org}")
            elif level:
                out.types[name].add(f"place:{level}")
            elif _PLACE_CUE.search(sentence[max(0, start - 40) : start]) and " " not in name:
                out.types[name].add("place:other")
            site = any(w.lower() in _SITE_WORDS for w in name.split())
            first = name.split()[0]
            parts = name.split()
            given = (
                first.lower() in _GIVEN
                and not first.isupper()
                and (len(parts) == 2 or (len(parts) == 3 and re.fullmatch(r"[A-Z]\.", parts[1])))
            )
            plain = len(parts) <= 4 and not any(
                w in _LINKS or w.lower() in _ORG_WORDS for w in parts
            )
            article = re.search(r"\b[Tt]he\s+$", sentence[max(0, start - 5) : start])
            modifier = _MODIFIES.match(sentence[end : end + 20])
            person = (given and not article and not modifier) or _person_cue(sentence, start, end)
            if person and plain and not (level or org or site):
                out.types[name].add("person")
            if _is_speaker(sentence, start, end) and not level:
                out.speakers.add(name)
    return out


_LINKS = {"of", "the", "de", "la", "y", "von", "van", "der", "da", "del", "le"}


def _share_word(a: str, b: str) -> bool:
    """Whether two names share a word (an organization word of one class apart)."""
    wa = {w.lower().strip(".") for w in a.split()} - {"of", "the", "de", "la", "y", "von"}
    wb = {w.lower().strip(".") for w in b.split()} - {"of", "the", "de", "la", "y", "von"}
    shared = wa & wb
    return bool(shared - set(_ORG_WORDS)) or not (wa - shared) or not (wb - shared)


def _distinct(a: str, b: str, sentence: str) -> bool:
    """Whether `b` may stand for `a`: no word shared, not one place under two names, `b`
    nowhere in `sentence`."""
    if a == b or _share_word(a, b):
        return False
    ga, gb = _alias_group(a), _alias_group(b)
    if ga is not None and ga == gb:
        return False
    held = {re.sub(r"['’]s?$", "", w.lower()) for w in words(sentence)}
    return not any(w.lower() in held for w in words(b) if w.lower() not in _LINKS)


def _partial(found: EntityMap, name: str) -> bool:
    """Whether the context writes `name` as part of a longer name ("Jordan" in "Jordan
    Belfort", "Paul" of "Paul v. Clinton"): what it names alone is then not clear."""
    here = re.escape(name)
    longer = re.compile(
        rf"(?<![\w’'])(?:[A-ZÀ-Þ][\w’'\-]*\s+{here}(?![\w’'])|{here}\s+(?:[A-ZÀ-Þ][\w’'\-]*|vs?\.))"
    )
    return any(longer.search(sentence) for sentence in found.sentences)


def _nested(found: EntityMap, a: str, b: str) -> bool:
    """Whether a passage writes the two places as one in the other ("Lyon, France")."""
    shared = found.where.get(a, set()) & found.where.get(b, set())
    joints = [f"{x}{j}{y}" for x, y in ((a, b), (b, a)) for j in (", ", " in ", " im ", " en ")]
    return any(j in found.sentences[i] for i in shared for j in joints)


#: Marks of page furniture or a link in a sentence.
_LINKED = re.compile(r"#|©|https?:|www\.|@|\bcopyright\b|powered by", re.I)
_DEBRIS = re.compile(
    r"#|©|:|\bfeat\.|\w/\w|\bvs?\.|https?:|www\.|@|\bcopyright\b|all rights reserved|powered by",
    re.I,
)


def _title_case(sentence: str) -> bool:
    """Whether most words of `sentence` are capitalized (a heading or a list of titles)."""
    found = [w for w in re.findall(r"[^\W\d_]+", sentence) if len(w) > 3]
    return len(found) >= 4 and sum(w[0].isupper() for w in found) > 0.6 * len(found)


def _bound(sentence: str, start: int, end: int) -> bool:
    """Whether the name at `start:end` is bound to words around it: after a title ("Ms.
    Niles", which a new name would have to match), or one part of a longer name ("Literary
    and Historical Society")."""
    before = sentence[max(0, start - 30) : start]
    prev = re.search(r"([^\W\d_]+)\.?\s+$", before)
    if prev and prev.group(1).lower() in _TITLES:
        return True
    if re.search(r"(?:[A-ZÀ-Þ][\w.’']*\s+(?:and|&|of|for|de|und|et|y)|\bSt\.?)\s+$", before):
        return True
    after = sentence[end : end + 40]
    if re.match(r"\s+(?:and|&|of|for|de|und|et|y)\s+(?:the\s+)?[A-ZÀ-Þ]", after):
        return True
    if re.match(r"\s+[\"“‘'(][A-ZÀ-Þ]", after):
        return True  # a nickname follows: Chet "JR" White
    follow = re.match(r",\s+([A-ZÀ-Þ][\w.]*(?:\s+[A-ZÀ-Þ][\w.]*)?)", after)
    return bool(follow and (place_level(follow.group(1)) or _alias_group(follow.group(1))))


def _negated(sentence: str) -> bool:
    return bool(
        re.search(
            r"\b(?:not|never|no|nor|neither|n't|without|failed|refused|denied|nicht|nie|kein|"
            r"keine|ne|pas|jamais|no|nunca|ni)\b|n['’]t\b|\?",
            sentence,
            re.IGNORECASE,
        )
    )


# --- entity_substitution ----------------------------------------------------------------------


@generator(
    kind="entity_substitution",
    expect="fail",
    summary="a name replaced by another name of the same type from the context",
)
def entity_substitution(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with a typed name (person, place, organization) replaced by another
    name of the same type the context names elsewhere, one the sentence does not hold and
    whose own sentences do not say the same thing."""
    found = entity_map(row)
    by_type: dict[str, list[str]] = defaultdict(list)
    for name in sorted(found.types):
        kind = found.type_of(name)
        if kind:
            by_type[kind].append(name)
    options: list[tuple[str, int, int, str, str]] = []
    for sentence in cached_sentences(row):
        if _negated(sentence) or _DEBRIS.search(sentence) or _title_case(sentence):
            continue
        spots = find_names(sentence)
        texts = [t for _, _, t in spots]
        for start, end, name in spots:
            kind = found.type_of(name)
            if not kind or texts.count(name) > 1 or _bound(sentence, start, end):
                continue
            if _MODIFIES.match(sentence[end : end + 20]):
                continue  # the name of a thing ("Harry Potter star", "Roy Martin middle school")
            if kind.startswith("place:") and not _PLACE_PREP.search(sentence[:start]):
                continue
            for other in by_type[kind]:
                if not _distinct(name, other, sentence) or _nested(found, name, other):
                    continue
                if _partial(found, other):
                    continue
                if kind.startswith("org:") and found.where[name] & found.where[other]:
                    continue
                if found.near(other, sentence, exclude=[name]):
                    continue
                options.append((sentence, start, end, name, other))
    if not options:
        return Skip("no typed name with another of its type")
    sentence, start, end, name, other = options[rng.randrange(len(options))]
    new = replace_once(sentence, start, end, other)
    return Variant(answer=new, before=name, after=other, language=language(sentence))


# --- role_swap --------------------------------------------------------------------------------

#: Verbs whose two sides cannot trade places (active or passive; en, de, fr, es).
_ASYMMETRIC = (
    r"defeated|defeats|beat|beats|overcame|eliminated|knocked out|ousted|unseated|acquired|"
    r"acquires|bought|buys|purchased|took over|succeeded|succeeds|replaced|replaces|preceded|"
    r"sued|sues|killed|kills|murdered|assassinated|shot|stabbed|attacked|invaded|conquered|"
    r"captured|arrested|fired|hired|sacked|dismissed|employed|employs|coached|trained|taught|"
    r"mentored|influenced|inspired|managed|owned|owns|founded|created|directed|produced|"
    r"sponsored|funded|criticized|criticised|praised|accused|blamed|elected|appointed|"
    r"nominated|endorsed|overthrew|betrayed|rescued|kidnapped|abducted|interviewed|"
    r"signed|adopted|raised|fathered|mothered|outsold|outscored|outperformed|overtook|"
    r"surpassed|absorbed|annexed|colonized|colonised|kills|rescues|saves|attacks|betrays|"
    r"kidnaps|hires|fires|defeats|shoots|stabs|poisons|arrests|frees|freed|recruits|"
    r"recruited|adopts|chases|chased|follows|followed|visits|visited|invites|invited|"
    r"employs|trains|outlived|outlives|survived|survives|beat out|edged out|edged|routed|"
    r"thrashed|crushed|outplayed|outclassed|dethroned|besieged|"
    r"besiegte|schlug|kaufte|übernahm|"
    r"ersetzte|verklagte|tötete|entließ|gründete|a battu|a vaincu|a racheté|a acquis|"
    r"a remplacé|a succédé à|a tué|a licencié|a fondé|derrotó a|derrotó|venció a|compró|"
    r"adquirió|reemplazó a|sucedió a|mató a|despidió a|fundó"
)
#: Relations written as "A is the son of B" that do not hold both ways.
_RELATION = (
    r"son|daughter|father|mother|parent|child|successor|predecessor|owner|subsidiary|"
    r"parent company|capital|student|pupil|teacher|mentor|employer|grandson|granddaughter|"
    r"grandfather|grandmother|nephew|niece|uncle|aunt|sohn|tochter|vater|mutter|"
    r"nachfolger|vorgänger|fils|fille|père|mère|successeur|prédécesseur|hijo|hija|padre|"
    r"madre|sucesor|predecesor"
)
_ADVERB = r"(?:later|then|also|eventually|subsequently|again|easily|finally|soon|[a-z]{3,}ly)"
_BETWEEN = re.compile(
    rf"\s+(?:(?:was|were|is|are|has been|had been|have been|has|had|wurde|fue)\s+)?"
    rf"(?:{_ADVERB}\s+)?"
    rf"(?:{_ASYMMETRIC})(?:\s+and\s+(?:{_ASYMMETRIC}))?(?:\s+(?:by|von|par|por))?\s+$|"
    rf"\s+(?:is|was|ist|war|est|était|es|era|fue)\s+(?:the\s+|der\s+|die\s+|le\s+|la\s+|"
    rf"el\s+)?(?:eldest\s+|youngest\s+|only\s+|older\s+|younger\s+|first\s+|second\s+|"
    rf"third\s+)?"
    rf"(?:{_RELATION})\s+(?:of|von|de|du|del)\s+$",
    re.IGNORECASE,
)
#: The last word of every one-way verb and relation: a sentence with none is not read on.
_VERB_WORDS = {max(alt.split(), key=len).lower() for alt in f"{_ASYMMETRIC}|{_RELATION}".split("|")}


def _lower_words(sentence: str) -> set[str]:
    return {w.lower() for w in words(sentence)}


_VERB_HINT = re.compile(rf"\b(?:{_ASYMMETRIC}|(?:{_RELATION})\s+(?:of|von|de|du|del))\s", re.I)


@generator(
    kind="role_swap",
    expect="fail",
    summary="two names around one verb swapped (who did what to whom)",
)
def role_swap(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """ "A defeated B" -> "B defeated A" (passive, two verbs "stabbed and killed", and "A is
    the son of B" alike; a "the" before a name moves with it), for verbs and relations that do
    not hold both ways; never where another passage sentence names the two together (one
    repeating the claim word for word aside), in a sentence with a negation or a list around
    the names, after a title or a preposition, or before a noun the name modifies."""
    if not any(
        _VERB_WORDS & _lower_words(c) and _VERB_HINT.search(c) for c in cached_sentences(row)
    ):
        return Skip("no two names around a one-way verb")
    found = entity_map(row)
    options: list[tuple[str, tuple[int, int, str], tuple[int, int, str]]] = []
    for sentence in cached_sentences(row):
        if _negated(sentence):
            continue
        spots = find_names(sentence)
        for first, second in itertools.pairwise(spots):
            one, two = _with_article(sentence, first), _with_article(sentence, second)
            between = sentence[one[1] : two[0]]
            if not _BETWEEN.fullmatch(between) or _share_word(first[2], second[2]):
                continue
            if _listed(sentence, one, two) or _together(found, sentence, first, second):
                continue
            if not _NAME_END.match(sentence, two[1]) or _OBJECT_BEFORE.search(sentence[: one[0]]):
                continue  # "the Caley network", "a workshop on Advanced Processors": no party
            if sum(1 for _, _, t in spots if t in (first[2], second[2])) != 2:
                continue
            if not (_known(found, first[2]) and _known(found, second[2])):
                continue
            if " " not in first[2] and _modifier(sentence, one[0]):
                continue
            if any(_titled(sentence, spot[0]) for spot in (one, two)):
                continue  # "Attorney General William Barr": the title would stay behind
            if language(sentence) == "de" and not all(
                " " in t or found.type_of(t) for t in (first[2], second[2])
            ):
                continue  # German writes every noun capitalized: one word is no sure name
            options.append((sentence, one, two))
    if not options:
        return Skip("no two names around a one-way verb")
    sentence, (s1, e1, a), (s2, e2, b) = options[rng.randrange(len(options))]
    opening = not sentence[:s1].strip()
    if opening and a.startswith("The "):
        a, b = "t" + a[1:], b[:1].upper() + b[1:]
    elif opening and b.startswith("the "):
        b = "T" + b[1:]
    new = sentence[:s1] + b + sentence[e1:s2] + a + sentence[e2:]
    return Variant(
        answer=new,
        before=sentence[s1:e2],
        after=new[s1:e2],
        language=language(sentence),
    )


#: What may follow a name with its article ("the Ten Rings to kill Stark", "the Clippers
#: 100-91"): not a noun it would modify ("the Caley network") or a longer name.
_NAME_END = re.compile(
    r"\s*(?:[.;:!?()]|,(?!\s+(?:[A-ZÀ-Þ]|(?:an?|the|which|who|whose)\b))|$)|\s+(?:in|on|at|by|for|to|from|with|after|before|during|"
    r"over|into|until|since|under|last|this|who|which|when|while|as|\d|im|am|mit|für|nach|"
    r"en|à|au|dans|pour|avec|après|avant|con|por|para|tras|durante|\d)\b"
)
#: A preposition just before the first name: it is the object of another word, not the
#: verb's subject ("a workshop on Advanced Processors was sponsored by IARPA").
_OBJECT_BEFORE = re.compile(
    r"(?<!\w)(?:on|of|about|in|at|for|from|with|to|into|by|against|between|über|von|sur|de|"
    r"sobre)\s+$",
    re.IGNORECASE,
)


def _titled(sentence: str, start: int) -> bool:
    """Whether a title or a role noun stands just before `start` ("General", "actor")."""
    prev = re.search(r"([^\W\d_]+)\.?\s+$", sentence[max(0, start - 30) : start])
    return bool(prev and prev.group(1).lower() in _TITLES | _ROLES)


def _with_article(sentence: str, name: tuple[int, int, str]) -> tuple[int, int, str]:
    """`name` with an English "the" before it taken in ("the LA Clippers"; a name that opens
    with "The" inside a sentence gets it in lower case), so a swap carries the article along:
    "The Wizards defeated the Clippers" -> "The Clippers defeated the Wizards"."""
    start, end, text = name
    if text.startswith("The ") and sentence[:start].strip():
        return start, end, "the" + text[3:]
    if re.search(r"(?:^|\s)[Tt]he\s$", sentence[max(0, start - 5) : start]):
        return start - 4, end, sentence[start - 4 : start].lower() + text
    return name


_JOINING = {
    "after", "when", "before", "while", "that", "which", "then", "since", "because", "until",
    "where", "once", "though", "although", "later", "also", "soon", "finally", "eventually",
    "subsequently", "with", "from", "into", "against", "whom", "whose", "only",
}  # fmt: skip


def _modifier(sentence: str, start: int) -> bool:
    """Whether the word before `start` is a lowercase content word (the capitalized word
    is then likely a modifier: "film Comedy directed by ...")."""
    prev = re.search(r"([^\W\d_]+)\s+$", sentence[max(0, start - 25) : start])
    return bool(
        prev
        and prev.group(1).islower()
        and len(prev.group(1)) > 3
        and prev.group(1) not in _JOINING
    )


def _source_like(found: EntityMap, name: str) -> bool:
    """Whether `name` reads as a person or an organization that can say things: typed so, or
    the last word of a person's name, or a name of several words that is no place, no
    heading and no title."""
    kind = found.type_of(name) or ""
    if kind.startswith("place") or _alias_group(name) is not None or place_level(name):
        return False
    if name.split()[-1].lower() in _TITLES | _ROLES | set(_ORG_WORDS) and " " not in name:
        return False
    if kind == "person" or kind.startswith("org:"):
        return True
    if any(o.endswith(f" {name}") and found.type_of(o) == "person" for o in found.where):
        return True
    return " " in name and _known(found, name) and name.split()[-1].lower() not in _TITLES | _ROLES


def _known(found: EntityMap, name: str) -> bool:
    """Whether `name` is surely a name: typed, of several words, the last word of a longer
    name, or a word the passages write capitalized inside a sentence and never in lower
    case ("Sources said" is no name)."""
    if found.types.get(name) or " " in name:
        return True
    if any(other.endswith(f" {name}") for other in found.where):
        return True
    return name in found.inside and name.lower() not in found.lowercase()


def _listed(sentence: str, first: tuple[int, int, str], second: tuple[int, int, str]) -> bool:
    """Whether either name is one of a list ("A and C defeated B", "B and D") or part of a
    longer phrase ("the Synod of the Patriarchate", "the Academy")."""
    before = sentence[: first[0]]
    after = sentence[second[1] :]
    if re.search(r"\b(?:of|the|The|of the)\s+$", before) or re.match(r"\s+(?:and|of)\b", after):
        return True
    join = r"(?:and|or|&|und|et|y|e|,)"
    return bool(
        re.search(r"(?:\b(?:[Aa]nd|[Oo]r|und|et|y|e)|&|[A-ZÀ-Þ][\w.]*,)\s+$", before)
        or re.match(rf"\s*(?:['’]s\b|(?:{join})\s+[A-ZÀ-ÖØ-Þ])", after)
        or re.match(r"['’]s\b", after)
    )


def _together(
    found: EntityMap, sentence: str, first: tuple[int, int, str], second: tuple[int, int, str]
) -> bool:
    """Whether another passage sentence names both (a rematch, a second deal); one that
    repeats the claim word for word ("A defeated B" again, a heading's copy) says nothing
    of the other way round and does not count."""
    shared = found.where.get(first[2], set()) & found.where.get(second[2], set())
    claim = sentence[first[0] : second[1]]
    return any(found.sentences[i] != sentence and claim not in found.sentences[i] for i in shared)


# --- attribution ------------------------------------------------------------------------------


@generator(
    kind="attribution",
    expect="fail",
    summary="a claim given to another person or source the context names",
)
def attribution(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """ "According to Smith, ..." -> "According to Jones, ..."; "Smith said ..." -> "Jones
    said ...": the speaker of a context sentence replaced by another speaker (or person) the
    context names, one not in the sentence whose own sentences say nothing like it."""
    found = entity_map(row)
    people = {n for n in found.types if found.type_of(n) == "person"}
    others = sorted(n for n in found.speakers | people if _source_like(found, n))
    options: list[tuple[str, int, int, str, str]] = []
    for sentence in cached_sentences(row):
        if "?" in sentence or _LINKED.search(sentence):
            continue
        spots = find_names(sentence)
        texts = [t for _, _, t in spots]
        for start, end, name in spots:
            if texts.count(name) > 1 or not _is_speaker(sentence, start, end):
                continue
            if _bound(sentence, start, end) or sentence[max(0, start - 4) : start] in (
                "the ",
                " of ",
            ):
                continue
            if not _source_like(found, name):
                continue
            if any(t.startswith("place:") for t in found.types.get(name, ())):
                continue
            for other in others:
                if not _distinct(name, other, sentence):
                    continue
                if found.near(other, sentence, exclude=[name]):
                    continue
                options.append((sentence, start, end, name, other))
    if not options:
        return Skip("no speaker with another speaker to give the claim to")
    sentence, start, end, name, other = options[rng.randrange(len(options))]
    new = replace_once(sentence, start, end, other)
    return Variant(answer=new, before=name, after=other, language=language(sentence))
