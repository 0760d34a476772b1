"""Every string the renderer puts on a page, in both languages."""

from __future__ import annotations

LANGUAGES = ("ja", "en")  # every label exists in each
LANGUAGE_NAMES = {"ja": "Japanese", "en": "English"}

LABELS: dict[str, dict[str, str]] = {
    "output": {"ja": "出力", "en": "Output"},
    "no_output": {"ja": "(出力なし)", "en": "(no output)"},
    "kernels": {"ja": "起動されたカーネル", "en": "Kernels launched"},
    "kernel": {"ja": "カーネル", "en": "Kernel"},
    "launches": {"ja": "起動回数", "en": "Launches"},
    "time": {"ja": "時間", "en": "Time"},
    "total": {"ja": "合計", "en": "Total"},
    "full_name": {"ja": "完全な名前を表示", "en": "show the full name"},
    "session": {"ja": "profiler セッション {i} / {n}", "en": "profiler session {i} of {n}"},
    "ran_on": {"ja": "実行環境", "en": "Ran on"},
    "wall": {"ja": "実行時間", "en": "wall time"},
    "commit": {"ja": "コミット", "en": "commit"},
    "cpu_title": {"ja": "CPU での実行結果です", "en": "This is a CPU capture"},
    "cpu_body": {
        "ja": "この例の GPU (CUDA) でのキャプチャはまだありません。ここに示す出力とカーネルは CPU で実行したときのもので、カーネル名も時間も GPU とは異なります。CPU では、inductor の `cpp_fused_*` カーネルが profiler に現れるよう、実行時に `torch._inductor.config.cpp.enable_kernel_profile` を有効にしています。",
        "en": "There is no GPU (CUDA) capture of this example yet. The output and kernels below come from a run on the CPU; kernel names and times differ from a GPU's. On the CPU the harness turns on `torch._inductor.config.cpp.enable_kernel_profile` so that inductor's `cpp_fused_*` kernels show up in the profiler.",
    },
    "cpu_again": {
        "ja": "この例も CPU で実行した結果です。詳しくは、このページで最初の CPU の注意書きを見てください。",
        "en": "This example too ran on the CPU; see the first CPU notice on this page.",
    },
    "cuda_stale": {
        "ja": "GPU でのキャプチャはありますが、いまのスニペットに対して古いため表示していません。",
        "en": "A GPU capture exists but is out of date for the snippet as it stands, so it is not shown.",
    },
    "env_snippet": {"ja": "スニペット", "en": "Snippet"},
    "env_device": {"ja": "デバイス", "en": "Device"},
    "env_torch": {"ja": "torch", "en": "torch"},
    "env_when": {"ja": "実行日時 (UTC)", "en": "Captured (UTC)"},
    "env_summary": {
        "ja": "GPU (CUDA) のキャプチャ: {cuda} / {n} 件、CPU のキャプチャ: {cpu} / {n} 件。",
        "en": "GPU (CUDA) captures: {cuda} of {n}; CPU captures: {cpu} of {n}.",
    },
    "nb_title": {"ja": "この章をノートブックで", "en": "This chapter as a notebook"},
    "nb_view": {"ja": "ノートブックを見る", "en": "View the notebook"},
    "nb_download": {"ja": "ダウンロード (.ipynb)", "en": "Download (.ipynb)"},
    "nb_colab": {"ja": "Colab で開く", "en": "Open in Colab"},
    "nb_body": {
        "ja": "この章のスニペットを、上から順に自分の環境で実行できます。出力欄には、このページと同じキャプチャの結果が入っています。",
        "en": "Run this chapter's snippets top to bottom yourself. Its output cells hold the same captures this page shows.",
    },
    # the notebook's first cell and its page on the site
    "nb_intro": {
        "ja": "この章のスニペットを、章のページと同じ順に並べたノートブックです。本文は[章のページ]({url})にあります。このファイルは章のページとスニペットから自動生成しています。",
        "en": "This chapter's snippets, in the order the [chapter page]({url}) runs them; the text is on that page. This file is generated from the page and the snippets.",
    },
    "nb_outputs": {
        "ja": "出力欄には、このノートブックを実行した結果ではなく、章のページに載せたのと同じキャプチャの出力が入っています。",
        "en": "The output cells hold the same captures the chapter page shows, not the result of running this notebook.",
    },
    "nb_captured_one": {
        "ja": "キャプチャした環境: {where}。",
        "en": "Captured on {where}.",
    },
    "nb_captured_many": {
        "ja": "キャプチャした環境:",
        "en": "Captured on:",
    },
    "nb_cpu_all": {
        "ja": "**これは CPU でのキャプチャです。** GPU (CUDA) で実行した出力ではありません。カーネル名も時間も GPU とは異なります。GPU で実行すると、出力欄は GPU での結果に置き換わります。",
        "en": "**This is a CPU capture.** These outputs did not come from a GPU (CUDA) run; kernel names and times differ on a GPU. Run the notebook on a GPU to replace them with a GPU's.",
    },
    "nb_cpu_some": {
        "ja": "**このうち {snippets} は CPU でのキャプチャです。** GPU (CUDA) で実行した出力ではなく、カーネル名も時間も GPU とは異なります。",
        "en": "**Of these, {snippets} are CPU captures:** not from a GPU (CUDA) run; kernel names and times differ on a GPU.",
    },
    "nb_license": {
        "ja": "© kernelbook の著者たち。本文は [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/deed.ja)、コードは [MIT ライセンス](https://opensource.org/license/mit)で公開しています。",
        "en": "© the kernelbook authors. Text: [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/); code: [MIT licence](https://opensource.org/license/mit).",
    },
    "nb_missing": {
        "ja": "キャプチャがまだないため、出力欄は空です。",
        "en": "There are no captures yet, so the output cells are empty.",
    },
    "nb_page_title": {"ja": "{title} (ノートブック)", "en": "{title} (notebook)"},  # on the site: not the chapter's own title
    "nb_date": {"ja": "{date} (UTC)", "en": "{date} (UTC)"},
    "nb_dates": {"ja": "{first} – {last} (UTC)", "en": "{first} to {last} (UTC)"},
    "permalink": {"ja": "この節へのリンク", "en": "Link to this section"},
    # the instructors' index: a copy button beside each canonical URL
    "copy": {"ja": "コピー", "en": "Copy"},
    "copy_link": {"ja": "「{what}」の URL をコピー", "en": "Copy the URL of “{what}”"},
    "copied": {"ja": "コピーしました", "en": "Copied"},
    "copy_failed": {"ja": "URL を選択しました。Ctrl+C (⌘C) でコピーできます", "en": "URL selected: press Ctrl+C (⌘C) to copy it"},
}


def label(key: str, lang: str, **fields: object) -> str:
    text = LABELS[key][lang]
    return text.format(**fields) if fields else text
