"""A tiny random-weight llama model in GGUF, with a real tokenizer, for the real-server tests.

The model's answers are noise, but everything around them is what a real llama.cpp model
has: a byte-level BPE tokenizer (the "gpt2" tokenizer model with the GPT-2 pre-tokenizer)
whose merges are learned here, deterministically, from an English and ASCII-board corpus
written in this file, so English text comes out at about 3-4 characters per token as it
does with real models; a ChatML chat template; bos/eos tokens; a 4,096-token trained
context. Generation takes a few seconds, needs no network and gives the same bytes on every
machine, so the file is cached under a name keyed by a hash of this source.

    python -m tests.support.tiny_gguf OUT.gguf      # write one, print its figures
    cached_model(directory)                           # path of the cached one, made if missing
"""

from __future__ import annotations

import collections
import hashlib
import heapq
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

import gguf
import numpy as np

CONTEXT_LENGTH = 4096
EMBEDDING_LENGTH = 128
BLOCK_COUNT = 2
HEAD_COUNT = 4
HEAD_COUNT_KV = 2  # grouped-query attention, as most current models have
FEED_FORWARD_LENGTH = 256
# An upper bound: the corpus below runs out of pairs seen twice a little before it.
NUM_MERGES = 2600
WEIGHT_SEED = 1234
MODEL_NAME = "arena-tiny-llama"

BOS_TOKEN = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (BOS_TOKEN, IM_START, IM_END)

# ChatML, as Qwen and many llama.cpp models ship it.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

# GPT-2's pre-tokenizer (llama.cpp's "gpt-2" pre-type), written for Python's `re`:
# \p{L} is [^\W\d_] and \p{N} is \d; the corpus is ASCII, where the two agree exactly.
PRETOKENIZER = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")


def byte_symbols() -> list[str]:
    """The printable character that stands for each byte in a byte-level BPE vocabulary.

    Printable Latin-1 bytes stand for themselves; the others (controls, space, ...) are
    shifted to code points from 256 on, in byte order, so that every token is visible text.
    This is the mapping GPT-2 defined and llama.cpp's "gpt2" tokenizer model expects.
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    symbols = {}
    shifted = 0
    for byte in range(256):
        if byte in printable:
            symbols[byte] = chr(byte)
        else:
            symbols[byte] = chr(256 + shifted)
            shifted += 1
    return [symbols[byte] for byte in range(256)]


BYTE_SYMBOLS = byte_symbols()


def to_symbols(text: str) -> str:
    return "".join(BYTE_SYMBOLS[byte] for byte in text.encode("utf-8"))


# ---------------------------------------------------------------------------------------
# The training corpus. Every sentence here was written for this file.

PARAGRAPHS = (
    """You are playing a game on a small grid. The grid is drawn with characters: a wall is
    shown as a hash sign, an empty cell as a dot, your position as the letter A and the goal
    as the letter G. On each turn you choose one action from the list of legal actions. When
    you reach the goal the episode ends and you receive a reward of one. If you walk into a
    wall nothing happens, but the step still counts.""",
    """Think step by step before you answer. First describe what you see on the board, then
    list the moves that are possible, then explain which move brings you closer to winning.
    Finally write your answer on its own line, starting with the word Action, followed by a
    colon and the move you have chosen.""",
    """The weather was cold and clear on the morning they left the village. They walked along
    the river for most of the day, stopping only to eat bread and cheese under an old oak
    tree. By the evening they had reached the foot of the mountain, where a small wooden
    house stood next to the road. An old woman opened the door and invited them inside.""",
    """In chess, each player starts with sixteen pieces: one king, one queen, two rooks, two
    bishops, two knights and eight pawns. White moves first. The aim of the game is to
    checkmate the opposing king, which means attacking it in such a way that it has no legal
    move to escape. A game can also end in a draw, for example by stalemate or by repetition.""",
    """Researchers often compare language models by asking them to solve the same set of
    problems under the same conditions. A good benchmark has clear rules, a fixed number of
    attempts, and a score that is easy to interpret. It should also report how often a model
    gives an answer that is not allowed, because an invalid answer tells us something
    different from a wrong one.""",
    """Please read the following instructions carefully. You will be shown the current state
    of the environment as text. Your reply must contain exactly one action. Do not add any
    explanation after the action. If your reply does not contain a valid action, a random
    legal action will be played instead and the move will be counted as illegal.""",
    """The kitchen was warm and smelled of fresh coffee. Somebody had left the radio on, and a
    quiet voice was reading the news about the markets, the elections and the football
    results. Anna poured herself a cup, sat down at the table by the window and opened the
    letter that had arrived the day before. It was shorter than she had expected.""",
    """Tic-tac-toe is played on a board of three rows and three columns. Two players take
    turns placing their mark, a cross or a circle, in an empty square. The first player to
    get three marks in a row, a column or a diagonal wins. When every square is filled and
    nobody has three in a row, the game is a draw. With perfect play every game is a draw.""",
    """When a server receives more requests than it can handle at the same time, it can either
    put the extra requests in a queue or refuse them with an error. A queue keeps the
    clients waiting but eventually answers them; an error lets them try again later. Both
    choices are reasonable, but a client must know which one it will get.""",
    """Every model has a context window: the largest number of tokens it can read and write in
    one request. A token is a piece of text, usually a few characters long; common words are
    often a single token, while rare words are split into several pieces. A prompt that is
    longer than the context window cannot be processed and the request is rejected.""",
    """The children spent the whole afternoon in the garden. They built a tower out of stones,
    chased the neighbour's cat along the fence, and argued about whose turn it was to use the
    swing. When their father called them in for dinner, their shoes were covered in mud and
    their faces were bright red from the sun.""",
    """To find the shortest path through a maze, start from the entrance and explore the
    neighbouring cells one layer at a time. Mark each cell with the number of steps needed to
    reach it. When the exit is reached, follow the numbers backwards to recover the path.
    This method always finds a shortest path if one exists.""",
    """The history of the town goes back more than eight hundred years. It was founded by
    merchants who traded wool, salt and wine along the coast. The market square, the church
    and the bridge over the river still stand today, although most of the houses around them
    were rebuilt after a great fire in the seventeenth century.""",
    """A good answer is short, correct and easy to check. Before you reply, make sure that the
    action you have chosen appears in the list of legal actions, that it is spelled exactly
    as it is written there, and that you have not included any other text that could be
    mistaken for a second action.""",
)

# Words for the sentence generator, most common first: the generator draws them with
# falling weights so the word frequencies look like English (a few words very often, most
# words rarely), which is what makes BPE keep whole common words and split rare ones.
FUNCTION_WORDS = """the of and to a in is it you that he was for on are with as I his they be at
one have this from or had by not but what some we can out other were all there when up use your
how said an each she which do their time if will way about many then them would write like so
these her long make thing see him two has look more day could go come did number no most people
my over know than call first who may down side been now find any new work part take get place
made live where after back little only round man year came show every good me give our under""".split()

CONTENT_WORDS = """game board move player piece turn score action state goal wall reward agent
model answer question prompt token window request server client error message image text
screen grid square row column cell king queen rook bishop knight pawn castle check mate draw
river mountain village house garden kitchen window table letter morning evening afternoon night
weather winter summer spring autumn water bread cheese coffee apple market church bridge street
train station ticket journey holiday family mother father sister brother friend neighbour child
teacher student school lesson book chapter story history language science number problem
solution method result reason example question answer order rule test level stage point chance
strategy plan path maze door key room corridor ladder torch sword shield monster treasure map
north south east west left right forward backward up down start finish begin continue stop
quickly slowly carefully quietly suddenly finally usually often never always sometimes again
small large long short old young new early late happy tired hungry careful important possible
different simple difficult clear quiet warm cold bright dark heavy light empty full open closed
choose decide explain describe remember forget believe understand consider compare measure
improve prepare protect return travel arrive leave follow reach enter collect avoid attack defend
win lose play learn teach read write speak listen watch wait walk run jump climb carry throw
benchmark evaluation episode environment observation instruction demonstration illegal invalid
legal random optimal expert baseline progress result leaderboard submission endpoint context
tokenizer completion generation temperature sample""".split()

EVERYDAY_WORDS = """last first next year month week hour minute second today tomorrow yesterday
car bus road town city country world earth sky sun moon star rain snow wind cloud sea lake
island forest field farm tree flower grass leaf stone rock sand hill valley beach coast
food meal breakfast lunch dinner soup meat fish egg milk tea sugar salt butter cake pie fruit
dog cat horse cow bird mouse sheep pig chicken animal body head face eye ear nose mouth hand arm
leg foot heart blood hair voice name word sentence page paper pen picture photo film song music
money price shop bank office company job business worker doctor nurse police army king officer
government law court power war peace news paper radio phone computer internet email program
system data file code bug test version update change problem idea fact truth question opinion
visit stay live move drive ride fly swim sit stand lie sleep wake eat drink cook wash clean
open close push pull turn hold keep let put set try ask tell say talk call answer reply shout
laugh cry smile think feel know want need like love hate hope wish mean seem become grow
buy sell pay spend cost send receive bring carry hold break build cut draw paint sing dance
begin end start finish happen appear disappear remain stay allow help show hide miss meet join
until since while because although unless whether though however therefore perhaps almost
already still even just also too very quite rather really nearly enough instead together
above below behind beside between among across through during before after around against
without within along toward towards inside outside near far here there everywhere somewhere
red blue green yellow black white brown grey orange pink purple golden silver
big little great high low deep wide narrow thick thin hot cool dry wet soft hard strong weak
rich poor cheap expensive fast slow safe dangerous busy free true false real whole half
good bad better best worse worst nice fine kind angry afraid proud sure ready able certain
grandmother grandfather daughter son husband wife uncle aunt cousin baby boy girl woman men women
children people person everyone someone nobody anything everything nothing something
arrived counted smelled walked talked looked played started finished wanted needed liked
asked answered called opened closed moved turned helped showed tried used worked lived
running walking talking looking playing starting finishing wanting needing going coming
quickly easily simply clearly exactly probably certainly especially actually recently
""".split()

SENTENCE_FORMS = (
    "The {a} {v} the {b} {adv}.",
    "{A} {v} a {b} near the {c}.",
    "Why did the {a} {v} the {b}?",
    "If the {a} is {adj}, {v} to the {b}.",
    "We {v} the {a} and the {b} before the {c}.",
    "It is {adj} to {v} the {a} when the {b} is {adj2}.",
    "There was a {adj} {a} in the {b}, and nobody wanted to {v} it.",
    "After the {a}, the {b} {v} {adv} to the {c}.",
    "Do not {v} the {a}; {v2} the {b} instead.",
    "She said that the {a} would {v} the {b} {adv}.",
)


VERBS = set(
    """choose decide explain describe remember forget believe understand consider compare measure
improve prepare protect return travel arrive leave follow reach enter collect avoid attack defend
win lose play learn teach read write speak listen watch wait walk run jump climb carry throw""".split()
)
ADJECTIVES = set(
    """small large long short old young new early late happy tired hungry careful important possible
different simple difficult clear quiet warm cold bright dark heavy light empty full open closed
legal random optimal illegal invalid""".split()
)


def english_sentences(count: int, rng: random.Random) -> list[str]:
    verbs = [w for w in CONTENT_WORDS if w in VERBS]
    adverbs = [w for w in CONTENT_WORDS if w.endswith("ly") or w in ("often", "never", "always", "again")]
    adjectives = [w for w in CONTENT_WORDS if w in ADJECTIVES]
    nouns = [w for w in CONTENT_WORDS if w not in VERBS and w not in ADJECTIVES and w not in adverbs]
    sentences = []
    for _ in range(count):
        form = rng.choice(SENTENCE_FORMS)
        a = rng.choice(nouns)
        sentences.append(
            form.format(
                a=a,
                A=a.capitalize(),
                b=rng.choice(nouns),
                c=rng.choice(nouns),
                v=rng.choice(verbs),
                v2=rng.choice(verbs),
                adj=rng.choice(adjectives),
                adj2=rng.choice(adjectives),
                adv=rng.choice(adverbs),
            )
        )
    return sentences


def word_salad(count: int, rng: random.Random) -> str:
    """Common words in English-like proportions (Zipf weights), lines of about ten words."""
    words = FUNCTION_WORDS + CONTENT_WORDS + EVERYDAY_WORDS
    weights = [1.0 / (rank + 2) for rank in range(len(words))]
    drawn = rng.choices(words, weights=weights, k=count)
    return "\n".join(" ".join(drawn[i : i + 10]) for i in range(0, count, 10))


def grid_board(rng: random.Random, width: int, height: int) -> str:
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            border = x in (0, width - 1) or y in (0, height - 1)
            row.append("#" if border or rng.random() < 0.15 else ".")
        rows.append(row)
    rows[rng.randrange(1, height - 1)][rng.randrange(1, width - 1)] = "A"
    rows[rng.randrange(1, height - 1)][rng.randrange(1, width - 1)] = "G"
    return "\n".join("".join(row) for row in rows)


def chess_board(rng: random.Random) -> str:
    """A board in the spaced letter style (upper case white, dots for empty squares)."""
    back = "r n b q k b n r".split()
    ranks = [back, ["p"] * 8, *[["."] * 8 for _ in range(4)], ["P"] * 8, [p.upper() for p in back]]
    for _ in range(rng.randrange(2, 12)):
        a, b = (rng.randrange(8), rng.randrange(8)), (rng.randrange(8), rng.randrange(8))
        ranks[a[0]][a[1]], ranks[b[0]][b[1]] = ranks[b[0]][b[1]], ranks[a[0]][a[1]]
    return "\n".join(" ".join(rank) for rank in ranks)


def tictactoe_board(rng: random.Random) -> str:
    cells = [rng.choice("XO ") for _ in range(9)]
    lines = [" | ".join(cells[i : i + 3]) for i in (0, 3, 6)]
    return "\n---------\n".join(lines)


def legal_moves_line(rng: random.Random) -> str:
    files, ranks = "abcdefgh", "12345678"
    count = rng.randrange(3, 12)
    moves = [rng.choice(files) + rng.choice(ranks) + rng.choice(files) + rng.choice(ranks) for _ in range(count)]
    return "Legal actions: " + ", ".join(moves)


def training_corpus() -> str:
    rng = random.Random(20240601)
    parts = [" ".join(paragraph.split()) for paragraph in PARAGRAPHS] * 3
    parts += english_sentences(1500, rng)
    parts.append(word_salad(20000, rng))
    for _ in range(80):
        parts.append("Observation:\n" + grid_board(rng, rng.randrange(5, 12), rng.randrange(5, 10)))
        parts.append("Board:\n" + chess_board(rng) + "\n" + legal_moves_line(rng))
        parts.append(tictactoe_board(rng) + "\nLegal actions: " + ", ".join(str(i) for i in rng.sample(range(9), 4)))
        step, reward, action = rng.randrange(1, 200), rng.choice(["0", "1", "-1", "0.5"]), rng.choice(["up", "down", "left", "right"])
        parts.append(f"Step {step}. Reward: {reward}. Action: {action}")
    return "\n\n".join(parts)


# ---------------------------------------------------------------------------------------
# Byte-level BPE training.


def train_bpe(text: str, num_merges: int) -> list[tuple[str, str]]:
    """Learn up to `num_merges` merges from `text`, most frequent pair first.

    Ties are broken by the pair's text, so the result depends on nothing but the input.
    Pair counts are updated incrementally (only the words that contain the merged pair are
    rewritten), which keeps a few thousand merges within a second or two in pure Python.
    """
    word_counts = collections.Counter(to_symbols(piece) for piece in PRETOKENIZER.findall(text))
    words = [list(word) for word in word_counts]
    counts = list(word_counts.values())
    pair_counts: collections.Counter[tuple[str, str]] = collections.Counter()
    words_with_pair: dict[tuple[str, str], set[int]] = collections.defaultdict(set)
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += counts[index]
            words_with_pair[pair].add(index)
    heap = [(-count, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)

    merges: list[tuple[str, str]] = []
    while heap and len(merges) < num_merges:
        negative_count, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative_count:
            continue  # a stale entry: the pair's count changed since it was pushed
        if -negative_count < 2:
            break  # merging a pair seen once learns nothing
        merges.append(pair)
        merged = pair[0] + pair[1]
        touched: set[tuple[str, str]] = set()
        for index in sorted(words_with_pair.pop(pair)):
            word, count = words[index], counts[index]
            rewritten: list[str] = []
            position = 0
            while position < len(word):
                if position + 1 < len(word) and word[position] == pair[0] and word[position + 1] == pair[1]:
                    rewritten.append(merged)
                    position += 2
                else:
                    rewritten.append(word[position])
                    position += 1
            if len(rewritten) == len(word):
                continue
            for old in zip(word, word[1:]):
                pair_counts[old] -= count
                touched.add(old)
            for new in zip(rewritten, rewritten[1:]):
                pair_counts[new] += count
                words_with_pair[new].add(index)
                touched.add(new)
            words[index] = rewritten
        pair_counts.pop(pair, None)
        touched.discard(pair)
        for changed in sorted(touched):
            if pair_counts[changed] > 0:
                heapq.heappush(heap, (-pair_counts[changed], changed))
    return merges


# ---------------------------------------------------------------------------------------
# The GGUF file.


def vocabulary(merges: list[tuple[str, str]]) -> list[str]:
    tokens = list(BYTE_SYMBOLS)
    known = set(tokens)
    for left, right in merges:
        if left + right not in known:
            tokens.append(left + right)
            known.add(left + right)
    return tokens + list(SPECIAL_TOKENS)


def write_model(path: Path) -> dict[str, float]:
    """Write the model to `path`; returns figures about it (vocabulary size, seconds)."""
    started = time.perf_counter()
    merges = train_bpe(training_corpus(), NUM_MERGES)
    tokens = vocabulary(merges)
    trained = time.perf_counter()

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name(MODEL_NAME)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_context_length(CONTEXT_LENGTH)
    writer.add_embedding_length(EMBEDDING_LENGTH)
    writer.add_block_count(BLOCK_COUNT)
    writer.add_feed_forward_length(FEED_FORWARD_LENGTH)
    writer.add_head_count(HEAD_COUNT)
    writer.add_head_count_kv(HEAD_COUNT_KV)
    writer.add_rope_dimension_count(EMBEDDING_LENGTH // HEAD_COUNT)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(len(tokens))

    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    special = set(SPECIAL_TOKENS)
    writer.add_token_types([gguf.TokenType.CONTROL if token in special else gguf.TokenType.NORMAL for token in tokens])
    writer.add_token_merges([f"{left} {right}" for left, right in merges])
    writer.add_bos_token_id(tokens.index(BOS_TOKEN))
    writer.add_eos_token_id(tokens.index(IM_END))
    writer.add_add_bos_token(False)  # ChatML models start from the template's first token
    writer.add_chat_template(CHAT_TEMPLATE)

    rng = np.random.default_rng(WEIGHT_SEED)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    head_dim = EMBEDDING_LENGTH // HEAD_COUNT
    # Shapes are (rows, columns) = (outputs, inputs); GGUF stores them the other way round.
    writer.add_tensor("token_embd.weight", weights(len(tokens), EMBEDDING_LENGTH))
    for block in range(BLOCK_COUNT):
        prefix = f"blk.{block}."
        writer.add_tensor(prefix + "attn_norm.weight", np.ones(EMBEDDING_LENGTH, dtype=np.float32))
        writer.add_tensor(prefix + "attn_q.weight", weights(EMBEDDING_LENGTH, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "attn_k.weight", weights(HEAD_COUNT_KV * head_dim, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "attn_v.weight", weights(HEAD_COUNT_KV * head_dim, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "attn_output.weight", weights(EMBEDDING_LENGTH, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "ffn_norm.weight", np.ones(EMBEDDING_LENGTH, dtype=np.float32))
        writer.add_tensor(prefix + "ffn_gate.weight", weights(FEED_FORWARD_LENGTH, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "ffn_up.weight", weights(FEED_FORWARD_LENGTH, EMBEDDING_LENGTH))
        writer.add_tensor(prefix + "ffn_down.weight", weights(EMBEDDING_LENGTH, FEED_FORWARD_LENGTH))
    writer.add_tensor("output_norm.weight", np.ones(EMBEDDING_LENGTH, dtype=np.float32))
    writer.add_tensor("output.weight", weights(len(tokens), EMBEDDING_LENGTH))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return {
        "vocabulary": len(tokens),
        "merges": len(merges),
        "tokenizer_seconds": trained - started,
        "total_seconds": time.perf_counter() - started,
    }


def source_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def cached_model(directory: Path) -> Path:
    """The model file in `directory`, generated there first if this source has changed."""
    path = Path(directory) / f"{MODEL_NAME}-{source_hash()}.gguf"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside its final name and renamed, so a reader never sees half a file
        # even when two test runs generate it at once (both write the same bytes).
        handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".partial")
        os.close(handle)
        try:
            write_model(Path(partial))
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.support.tiny_gguf OUT.gguf")
    figures = write_model(Path(sys.argv[1]))
    print(", ".join(f"{name}: {round(value, 2)}" for name, value in figures.items()))
