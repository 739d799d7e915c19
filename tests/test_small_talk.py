"""Which lines say nothing (memory_core.small_talk): social talk, or an acknowledgement with
no name or key before it."""
import pytest

from memory_core.small_talk import says_nothing


@pytest.mark.parametrize("line", [
    "收到", "ok 收到", "好的好的", "好的，先这样", "哈哈哈哈哈哈", "辛苦了各位 🙏", "周末愉快", "谢谢老板",
    "双十一快乐哈哈", "祝大家中秋快乐", "劳动节快乐！", "清明快乐 enjoy the break", "have a good weekend all",
    "thanks all, good week", "Sounds like a plan!", "Thanks a lot!", "ＯＫ", "okk", "Happy new year!",
    "Leo: Great, see you then.", "Nate: Take care!", "**Bart:** thanks!", "[10:32] Bart: see ya",
    "> Leo: bye", "用户：好嘞", "助手：嗯嗯，了解～", "Assistant: you're welcome",
])
def test_social_talk_or_an_acknowledgement_to_no_one_says_nothing(line):
    assert says_nothing(line)


@pytest.mark.parametrize("line", [
    "", "🎉", "收到了吗", "可以吗", "快乐", "不快乐", "我很快乐", "最近不太快乐", "毕业快乐", "累并快乐着",
    "Caroline: Thanks, Mel!", "happy birthday Tom", "see you in Paris", "ok 2", "ok 3", "k8s", "Redis",
    "好的，周五上线", "收到，明天上线", "thanks, the TTL is 3600 now", "中秋快乐！今年中秋是在大理过的",
    "TODO: ok", "plan A", "ok tomorrow", "same day", "Meeting: tomorrow afternoon",
])
def test_a_name_a_number_a_time_a_feeling_or_any_other_word_says_something(line):
    assert not says_nothing(line)


@pytest.mark.parametrize("line", ["CI: ok", "Approved: yes", "GDPR: no", "When: morning",
                                  "上线：可以", "老李：可以", "Leo: no", "[10:32] 小王：收到"])
def test_an_acknowledgement_after_a_name_or_a_key_is_an_answer_or_a_value(line):
    assert not says_nothing(line)


def test_a_long_line_is_never_read_as_small_talk():
    assert not says_nothing("thanks " * 10)
