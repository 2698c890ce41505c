"""The grammar's look-alikes are worked out once per model and read back at the next load."""

from __future__ import annotations

import json
import os
import stat

import pytest

from voicehost.voice_in.grammar_cache import FILE_NAME, cache_paths, cached_words

KEY = {"kind": "competitors", "stop_words": ["пас"], "count": 2}


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "vosk-model-small-ru"
    (folder / "graph").mkdir(parents=True)
    (folder / "graph" / "words.txt").write_text("<eps> 0\nпас 1\nпаспорт 2\nпасть 3\n", "utf-8")
    return folder


def counting(words):
    calls = []

    def compute():
        calls.append(1)
        return words

    return compute, calls


def test_the_choice_is_made_once_and_kept_beside_the_model(model):
    compute, calls = counting(("паспорт", "пасть"))

    assert cached_words(model, KEY, compute) == ("паспорт", "пасть")
    assert cached_words(model, KEY, compute) == ("паспорт", "пасть")
    assert calls == [1]
    assert (model / FILE_NAME).is_file()


def test_a_damaged_or_edited_file_is_made_again(model):
    compute, calls = counting(("паспорт",))
    cached_words(model, KEY, compute)
    data = json.loads((model / FILE_NAME).read_text("utf-8"))
    data["entries"][next(iter(data["entries"]))] = ["пас"]  # the stop word as its own rival
    (model / FILE_NAME).write_text(json.dumps(data), "utf-8")

    assert cached_words(model, KEY, compute) == ("паспорт",)
    assert calls == [1, 1]


def test_another_model_in_the_same_folder_is_not_given_the_old_choice(model):
    compute, calls = counting(("паспорт",))
    cached_words(model, KEY, compute)
    (model / "graph" / "words.txt").write_text("<eps> 0\nпас 1\nопасно 2\n", "utf-8")

    assert cached_words(model, KEY, counting(("опасно",))[0]) == ("опасно",)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_model_folder_keeps_the_choice_in_the_user_s_cache(model):
    model.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        compute, calls = counting(("паспорт",))
        assert cached_words(model, KEY, compute) == ("паспорт",)
        assert cached_words(model, KEY, compute) == ("паспорт",)
        assert calls == [1]
        assert not (model / FILE_NAME).exists() and cache_paths(model)[1].is_file()
    finally:
        model.chmod(stat.S_IRWXU)


def test_an_unwritable_model_folder_falls_back_to_the_user_s_cache(model, monkeypatch):
    # As root nothing is read-only: a file in the way of the model's copy stands in for it.
    (model / FILE_NAME).mkdir()
    compute, calls = counting(("паспорт",))

    assert cached_words(model, KEY, compute) == ("паспорт",)
    assert cached_words(model, KEY, compute) == ("паспорт",)
    assert calls == [1]
    assert cache_paths(model)[1].is_file()
