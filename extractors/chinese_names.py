"""Whether a short run of ideographs is a Chinese person's name.

Chinese news often credits its reporter with no label at all: a name in
brackets closing the last paragraph ("……将先后在巴西举行。（张巨峰）"), or a
label run straight into the name ("作者魏星"). With no separator, the name
is told by its form: a common surname, then one or two given-name
characters, and jieba's part-of-speech tagger reads a person's name at its
end. The surname alone would take words such as 黄金 or 韩国; the tagger
alone takes 高清; neither rejects an article's closing words (全文完, a
photo's credit 刘通摄), which are left out by their last character.
"""

from __future__ import annotations

import re

from .text import jieba_tagger

# The most common single-character surnames (about 95% of people in China),
# simplified and traditional forms.
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺"
    "顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿"
    "关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华"
    "喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗"
    "瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝官封谈匡"
    "鞠惠荆乐冀郁胥南班储栗燕楚鄢劳谌奚皮粟冼蔺楼满闻厉伊仝区郜阚花权强帅屠豆朴盖练廉禹井祖"
    "漆巴丰支卿国狄平计索宣晋相初门云容敬扈晁芮普阙浦戈伏鹿薄邸雍辜羊乌母裘亓修邰赫杭况那宿"
    "鲜印逯隆茹诸战慕危玉银亢嵇湛宾戎勾茅利居揭干尉冶斯元束檀衣信展阴昝智幸奉植衡富尧"
    "陳楊黃趙吳孫馬劉鄭謝韓馮鄧蕭董蔣葉蘇呂盧鍾譚陸範賈韋鄒龍賀顧龔錢嚴溫莊聶魯歐關蘭紀畢"
    "塗駱遊鮑饒滕鄔邊樂鄺閔藍顏龐陶湯許張"
)
_COMPOUND_SURNAMES = frozenset(
    ["欧阳", "司马", "诸葛", "上官", "东方", "皇甫", "尉迟", "公孙", "慕容", "令狐", "司徒",
     "夏侯", "长孙", "宇文", "端木", "歐陽", "司馬", "諸葛", "東方", "長孫", "公孫"]
)  # fmt: skip
# Last characters of the closing words that share a name's form: the end
# (全文完), "to be continued" (待续), a photo's or a picture's credit (刘通摄).
_CLOSING_ENDS = frozenset("完续續摄攝图圖")
_IDEOGRAPHS = re.compile(r"[\u4e00-\u9fff]+")


def is_chinese_name(text: str) -> bool:
    """A surname of 1 or 2 characters and a given name of 1 or 2, whose last
    word jieba tags as a person's name (``nr``, ``nrt``, ``nrfg``)."""
    if not _IDEOGRAPHS.fullmatch(text) or text[-1] in _CLOSING_ENDS:
        return False
    if text[:2] in _COMPOUND_SURNAMES:
        given = len(text) - 2
    elif text[0] in _SURNAMES:
        given = len(text) - 1
    else:
        return False
    if not 1 <= given <= 2:
        return False
    *_, last = jieba_tagger().cut(text)
    return last.flag.startswith("nr")
