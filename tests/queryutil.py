"""How the search pipeline turns a query into FTS5 terms, for tests to look at."""
from memory_core.text import match_of, weighted_terms


def query_terms(query):
    """The phrases a keyword search matches, most specific first."""
    return [t for t, _ in weighted_terms(query)]


def match_expression(query):
    """The MATCH string a keyword search runs."""
    return match_of(weighted_terms(query))
