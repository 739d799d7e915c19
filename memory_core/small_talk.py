"""Lines that say nothing: thanks, a greeting, a farewell, a holiday wish, laughter ("谢谢",
"have a good weekend", "清明快乐", "哈哈哈"), or an acknowledgement with no one to answer
("收到", "好的好的", "ok"). A log keeps such lines, but they answer no question; short, they
outscored the records a query was about on one shared word ("手机上收到的提醒…" found "收到")
or on none at all (the test model puts every short Chinese line near every Chinese query).
Search takes them off its candidate lists (search.saying_nothing). docs/retrieval.md
"Lines that say nothing".

A line is read as phrases: it says nothing when it can be cut wholly into the phrases below,
in either language. An acknowledgement after a name or a key is an answer or a value ("老李：
可以", "CI: ok", "Approved: yes"), so a line that opens with one must also hold social talk
("Nate: Take care!"); a chat role ("用户：好嘞") is no name.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .text import characters_and_words, folded, spoken

SOCIAL, ACK, FILLER = "social", "ack", "filler"


def _phrases(cls: str, text: str, chinese: bool = False) -> dict:
    """{phrase as its tokens: cls}: English phrases between " | " and line ends, as words;
    Chinese ones between spaces, as characters (`text.characters_and_words`)."""
    said = text.split() if chinese else re.split(r"\s*[|\n]\s*", text.strip())
    return {tuple(p) if chinese else tuple(p.split()): cls for p in said if p}


_EN = {
    **_phrases(SOCIAL, """
thanks | thank you | thank u | thx | ty | tysm | cheers | thanks a lot | thank you so much | many thanks
hi | hello | hey | hiya | good morning | good evening | good afternoon
good night | night night | gn | gm | nighty night
bye | goodbye | bye bye | see you | see ya | cya | see you later | see you soon | see you tomorrow
see you then | talk later | talk soon | talk to you later | talk to you soon | ttyl | catch you later
take care | stay safe | good luck
have a good day | have a nice day | have a great day | have a good one | have a nice one
have a good weekend | have a nice weekend | have a great weekend | have a good week | good week
have a good evening | have a nice evening | have a good night | enjoy | enjoy the break
enjoy the weekend | enjoy your weekend | happy holidays | happy new year | merry christmas
lol | lmao | haha | hahaha | hahahaha | hehe | heh | wow | yay | woohoo
congrats | congratulations | you too | same to you | same here | me too | no worries
you are welcome | you re welcome | welcome | yw | no problem | np
"""),
    # a time of day alone greets; after a key ("When: morning") it is a value
    **_phrases(ACK, """
ok | okay | okey | oki | k | kk | okk | sure | yes | yeah | yep | yup | ya | yea | no | nope | nah
great | cool | nice | good | awesome | perfect | fine | alright | all right | right | got it
noted | will do | agreed | understood | roger | copy that | makes sense | sounds good
sounds great | sounds like a plan | exactly | absolutely | definitely | of course | indeed
gotcha | oh | ah | oh ok | i see
morning | evening | night | later
"""),
    **_phrases(FILLER, """
a | the | all | everyone | guys | folks | team | so | very | too | again | for | and | to | much
"""),
}
_ZH = {
    **_phrases(SOCIAL, """
谢谢 多谢 谢啦 谢了 感谢 辛苦 辛苦了 辛苦啦 拜拜 再见 晚安 早安 早 早上好 晚上好 下午好 中午好 你好 您好
大家好 午安 周末愉快 节日快乐 先这样 就这样 回头再说 回头聊 回聊 改天聊 晚点聊 哈 嘿 呵 嘻 呜 加油 棒 太棒了
厉害 不客气 保重 恭喜 没事
""", chinese=True),
    **_phrases(ACK, """
好 好的 好滴 好嘞 好啊 好吧 好哒 行 行吧 行的 可以 嗯 嗯嗯 哦 噢 喔 收到 了解 明白 知道 懂 没问题 对 是的 是
没错
""", chinese=True),
    **_phrases(FILLER, """
了 啦 吧 呀 啊 哟 呢 嘛 你 您 大家 各位 一起 也 都 的 哒 滴 嗷 哇 耶 祝 老板
""", chinese=True),
}
_LONGEST = max(6, *(len(p) for p in (*_EN, *_ZH)))  # tokens; 6: "劳动节快乐"
# A holiday's wish ("中秋快乐", "劳动节快乐", "双十一快乐"), not a feeling ("不快乐", "我很快乐")
# nor a life event, which says something ("毕业快乐", "结婚快乐", "离职快乐").
_WISH = re.compile(r"(?:[\u4e00-\u9fff]{0,3}节|新年|春节|元旦|元宵|清明|端午|七夕|中秋|国庆|五一|十一|"
                   r"双十一|双十二|圣诞|周末|假期|假日)快乐")
# What may come before a speaker: a quote mark, a chat's time ("[10:32] 小王：收到").
_BEFORE = re.compile(r"\s*(?:>\s*)*(?:[\[(]?\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?[\])]?\s*)?", re.I)
ROLES = frozenset("用户 助手 user assistant human ai bot system 我 me".split())
LONGEST = 40  # characters: a longer line says something


@lru_cache(maxsize=4096)  # a warm process meets the same short lines search after search
def says_nothing(text: str) -> bool:
    """True when a short line is only social talk or an acknowledgement, in either language
    (the module's docstring says which)."""
    text = folded(text)
    if len(text) > LONGEST:
        return False
    name, text = spoken(text[_BEFORE.match(text).end():])
    tokens = characters_and_words(text)
    if not tokens:
        return False
    ends = _cuts(tokens)
    return SOCIAL in ends.get(len(tokens), ()) or (
        len(tokens) in ends and (not name or name in ROLES))


def _cuts(tokens: list) -> dict:
    """{where a cut of the tokens into phrases ends: the set of {SOCIAL} or {None}, whether
    social talk was among the phrases of some cut that ends there}."""
    ends: dict = {0: {None}}
    for i in range(len(tokens)):
        if i not in ends:
            continue
        social = SOCIAL in ends[i]
        for j in range(i + 1, min(i + _LONGEST, len(tokens)) + 1):
            cls = _EN.get(tuple(tokens[i:j])) or _ZH.get(tuple(tokens[i:j]))
            if cls is None and all(len(t) == 1 for t in tokens[i:j]) \
                    and _WISH.fullmatch("".join(tokens[i:j])):
                cls = SOCIAL
            if cls is not None:
                ends.setdefault(j, set()).add(SOCIAL if social or cls == SOCIAL else None)
    return ends
