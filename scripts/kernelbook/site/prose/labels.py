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
    "session": {"ja": "プロファイラのセッション {i} / {n}", "en": "profiler session {i} of {n}"},
    "ran_on": {"ja": "実行環境", "en": "Ran on"},
    "wall": {"ja": "実行時間", "en": "wall time"},
    # a capture made beside others (`capture --jobs`, snippets that time nothing): said, as its times may show it
    "side_by_side": {"ja": "スニペット {n} 件を同時に実行", "en": "{n} snippets run at a time"},
    "commit": {"ja": "コミット", "en": "commit"},
    "cpu_title": {"ja": "CPU での実行結果です", "en": "This is a CPU capture"},
    "cpu_body": {
        "ja": "この例の GPU (CUDA) でのキャプチャはまだありません。ここに示す出力とカーネルは CPU で実行したときのもので、カーネル名も時間も GPU とは異なります。CPU では何も起動されないので、「カーネル」の欄には CPU が実際に仕事をした演算 (いちばん内側の ATen 演算子や、コンパイルされた `cpp_fused_*` のループ) を数えています。実行するときに何かを設定しているのは、スニペット自身のコードに書いてあるものだけです。",
        "en": "There is no GPU (CUDA) capture of this example yet. The output and kernels below come from a run on the CPU; kernel names and times differ from a GPU's. Nothing is launched on a CPU, so the kernels counted are the operations that did the CPU's work (the innermost ATen operators, or a compiled `cpp_fused_*` loop). Whatever the run needed set is set in the snippet's own code above, nowhere else.",
    },
    "cpu_again": {
        "ja": "この例も CPU で実行した結果です。詳しくは、このページで最初の CPU の注意書きを見てください。",
        "en": "This example too ran on the CPU; see the first CPU notice on this page.",
    },
    # a CPU capture whose Triton kernels ran in Triton's interpreter (directives/run.py: interpreted)
    "cpu_interpreted_body": {
        "ja": "この例の GPU (CUDA) でのキャプチャはまだありません。ここに示す出力とカーネルは CPU で実行したときのもので、Triton のカーネルはコンパイルされておらず、Triton のインタプリタ (`TRITON_INTERPRET=1`、numpy) で解釈実行したものです。結果は PyTorch と照合して確かめています。起動回数は `triton: …` の範囲から数えたもので、それ以外の行は CPU が実際に仕事をした演算 (いちばん内側の ATen 演算子や、コンパイルされた `cpp_fused_*` のループ) です。インタプリタの時間には意味がありません。実行するときに何かを設定しているのは、スニペット自身のコードに書いてあるものだけです。",
        "en": "There is no GPU (CUDA) capture of this example yet. The output and kernels below come from a run on the CPU, where the Triton kernels were interpreted by Triton's interpreter (`TRITON_INTERPRET=1`, on numpy), not compiled. Their results are checked against PyTorch; each launch is counted from its `triton: …` range, and the other rows are the operations that did the CPU's work (the innermost ATen operators, or a compiled `cpp_fused_*` loop). The interpreter's times mean nothing. Whatever the run needed set is set in the snippet's own code above, nowhere else.",
    },
    "cpu_interpreted_again": {
        "ja": "この例も CPU で実行し、Triton のカーネルはインタプリタで解釈実行したものです。詳しくは、このページで最初のその注意書きを見てください。",
        "en": "This example too ran on the CPU, its Triton kernels interpreted, not compiled; see the first such notice on this page.",
    },
    # a CPU capture of a snippet that compiled kernels for a GPU without running them: its
    # results name the target ("target": "cuda:90"); directives/run.py: compiled_for
    "compiled_title": {"ja": "{arch} ({gpus}) 向けにコンパイル、実行はしていません",
                       "en": "Compiled for {arch} ({gpus}), not run"},
    "compiled_body": {
        "ja": "この例は GPU でカーネルを実行していません。Triton がカーネルを {arch} 向けにコンパイルし、Triton に同梱されている NVIDIA のツール (`ptxas`、`cuobjdump`、`nvdisasm`) でその機械語を読んだ結果です。コンパイルは GPU のない CPU のマシンで行いましたが、機械語とそのレジスタ数などはコンパイルしたマシンには依存せず、Triton のバージョン ({triton}) とターゲットだけで決まります。時間は測っていません。",
        "en": "This example ran nothing on a GPU. Triton compiled the kernels for {arch}, and the NVIDIA tools that come with Triton (`ptxas`, `cuobjdump`, `nvdisasm`) read the machine code. The compiling was done on a CPU-only machine, but the machine code and its register counts and the like do not depend on that machine, only on the Triton version ({triton}) and the target. Nothing was timed.",
    },
    "compiled_again": {
        "ja": "この例もカーネルを {arch} 向けにコンパイルしただけで、実行はしていません。詳しくは、このページで最初のその注意書きを見てください。",
        "en": "This example too compiled its kernels for {arch} without running them; see the first such notice on this page.",
    },
    # the same for CUDA C++ compiled by nvcc ("compiler": "nvcc" in the results; ch05/cuda_sm90)
    "compiled_nvcc_body": {
        "ja": "この例は GPU でカーネルを実行していません。nvcc ({nvcc}) が CUDA C++ のカーネルを {arch} 向けにコンパイルし、NVIDIA の `cuobjdump` でその機械語を読んだ結果です。コンパイルは GPU のない CPU のマシンで行いましたが、機械語とそのレジスタ数などはコンパイルしたマシンには依存せず、nvcc のバージョンとターゲットだけで決まります。時間は測っていません。",
        "en": "This example ran nothing on a GPU. nvcc ({nvcc}) compiled the CUDA C++ kernels for {arch}, and NVIDIA's `cuobjdump` read the machine code. The compiling was done on a CPU-only machine, but the machine code and its register counts and the like do not depend on that machine, only on the nvcc version and the target. Nothing was timed.",
    },
    "compiled_nvcc_again": {
        "ja": "この例もカーネルを {arch} 向けに nvcc でコンパイルしただけで、実行はしていません。詳しくは、このページで最初のその注意書きを見てください。",
        "en": "This example too compiled its kernels for {arch} with nvcc without running them; see the first such notice on this page.",
    },
    "cuda_stale": {
        "ja": "GPU でのキャプチャはありますが、いまのスニペットに対して古いため表示していません。",
        "en": "A GPU capture exists but is out of date for the snippet as it stands, so it is not shown.",
    },
    "previous_title": {"ja": "前回のキャプチャからの変化", "en": "Changes since the previous capture"},
    "previous_ran": {"ja": "前回のキャプチャ", "en": "Previous capture"},
    "previous_same": {"ja": "カーネルと起動回数は前回と同じで、カーネル時間の合計の差は ±{pct}% 以内です。",
                      "en": "The same kernels and launches as before; total kernel time within ±{pct}%."},
    "previous_added": {"ja": "新たに起動されたカーネル", "en": "Kernels now launched"},
    "previous_removed": {"ja": "起動されなくなったカーネル", "en": "Kernels no longer launched"},
    "previous_counts": {"ja": "起動回数が変わったカーネル", "en": "Launch counts changed"},
    "previous_launches": {"ja": "起動回数の合計", "en": "Total launches"},
    "previous_time": {"ja": "カーネル時間の合計", "en": "Total kernel time"},
    "previous_time_same": {"ja": "カーネル時間の合計 (±{pct}% 以内で変化なし)", "en": "Total kernel time (unchanged, within ±{pct}%)"},
    "previous_sessions": {"ja": "プロファイラのセッションの数", "en": "Profiler sessions"},
    "previous_session": {"ja": "プロファイラのセッション {i}", "en": "profiler session {i}"},
    "env_snippet": {"ja": "スニペット", "en": "Snippet"},
    "env_device": {"ja": "デバイス", "en": "Device"},
    "env_torch": {"ja": "torch", "en": "torch"},
    "env_when": {"ja": "実行日時 (UTC)", "en": "Captured (UTC)"},
    "env_summary": {
        "ja": "GPU (CUDA) のキャプチャは {n} 件中 {cuda} 件、CPU のキャプチャは {n} 件中 {cpu} 件です。",
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
        "ja": "この章の本文とスニペットをまとめたノートブックです。[章のページ]({url})から自動生成しているので、本文も数値も章のページと同じです。コードセルはスニペットそのものなので、上から順に自分の環境で実行できます。",
        "en": "This chapter's text and snippets as a notebook, generated from the [chapter page]({url}): the text and every number are the page's, and each code cell is a snippet exactly, so you can run them top to bottom yourself.",
    },
    "nb_outputs": {
        "ja": "出力欄には、このノートブックを実行した結果ではなく、章のページに載せたのと同じキャプチャの出力が入っています。",
        "en": "The output cells hold the same captures the chapter page shows, not the result of running this notebook.",
    },
    "nb_captured_one": {
        "ja": "キャプチャした環境は {where} です。",
        "en": "Captured on {where}.",
    },
    "nb_captured_many": {
        "ja": "キャプチャした環境は次のとおりです。",
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
    # the first cell of a chapter whose snippets run Triton kernels (they switch the interpreter on themselves)
    "nb_triton": {
        "ja": "**Triton のカーネルについて。** Colab では GPU のランタイム (「ランタイム」→「ランタイムのタイプを変更」→ GPU) を選ぶと、Triton がカーネルを GPU 向けにコンパイルします。GPU がない場合は、各スニペットが `triton` を import する前に自分で `TRITON_INTERPRET=1` を設定し、Triton のインタプリタがカーネルを numpy で CPU 上で実行します。結果は確かめられますが、時間には意味がありません。Colab の PyTorch には Triton が含まれています。ほかの環境では、先に `triton` と `numpy` をインストールしてください。",
        "en": "**Triton kernels.** On Colab, choose a GPU runtime (Runtime → Change runtime type → GPU) and Triton compiles the kernels for it. Without a GPU, each snippet sets `TRITON_INTERPRET=1` itself before it imports `triton`, and Triton's interpreter runs the kernels on the CPU with numpy: the results can be checked, the times mean nothing. Colab's PyTorch comes with Triton; elsewhere, install `triton` and `numpy` first.",
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
    # what the directives become in a notebook
    "nb_figure_link": {"ja": "章のページで見る", "en": "see it on the chapter page"},
    "nb_data_from": {"ja": "{device} でのキャプチャから:", "en": "From the {device} capture:"},
    "nb_no_figure": {"ja": "(図を描けませんでした: {why})", "en": "(the figure could not be drawn: {why})"},
    # the glossary page and its entries
    "glossary_chapter": {"ja": "第 {n} 章", "en": "Chapter {n}"},
    "glossary_read": {"ja": "この章を読む", "en": "Read the chapter"},
    "glossary_related": {"ja": "関連", "en": "See also"},
    "glossary_none": {
        "ja": "この本には用語集がありません (kernelbook プラグインのオプション `glossary`)。",
        "en": "This book has no glossary (the kernelbook plugin's `glossary` option).",
    },
    "nb_date": {"ja": "{date} (UTC)", "en": "{date} (UTC)"},
    "nb_dates": {"ja": "{first} – {last} (UTC)", "en": "{first} to {last} (UTC)"},
    "permalink": {"ja": "この節へのリンク", "en": "Link to this section"},
    # the instructors' index: a copy button beside each canonical URL
    "copy": {"ja": "コピー", "en": "Copy"},
    "copy_link": {"ja": "「{what}」の URL をコピー", "en": "Copy the URL of “{what}”"},
    "copied": {"ja": "コピーしました", "en": "Copied"},
    "copy_failed": {"ja": "URL を選択しました。Ctrl+C (⌘C) でコピーできます", "en": "URL selected: press Ctrl+C (⌘C) to copy it"},
    # scoped claims waiting for their device's capture (the text is the spec's, both languages)
    "needs_cuda": {"ja": "GPU のキャプチャが必要", "en": "GPU capture needed"},
    "needs_cpu": {"ja": "CPU のキャプチャが必要", "en": "CPU capture needed"},
    # an example's CUDA tab while no GPU has run it (directives/run.py: gpu_door)
    "door_title": {"ja": "GPU (CUDA) でのキャプチャはまだありません", "en": "No GPU (CUDA) capture yet"},
    "door_body": {
        "ja": "このスニペットを NVIDIA の GPU で実行したキャプチャがマージされると、このタブにその実行の出力、起動された CUDA カーネルの名前と起動回数と時間、実行した GPU と torch のバージョンが表示されます。GPU でしか確かめられないこのページの主張もそのキャプチャで確かめられ、本文の「予想」は測った値に置き換わります。",
        "en": "Once a capture of this snippet run on an NVIDIA GPU is merged, this tab shows that run: its output, the CUDA kernels it launched with their launch counts and times, and the GPU and torch version it ran on. The claims on this page that only a GPU can check are then checked against it, and the text's predictions are replaced by the measured values.",
    },
    "door_kit_intro": {
        "ja": "GPU があれば、キャプチャ用のキット (ノートブック 1 つ) で本のスニペットをすべて実行し、キャプチャをまとめて送れます。",
        "en": "If you have a GPU, the capture kit (one notebook) runs every snippet of the book and packs the captures for you to send.",
    },
    "door_kit": {"ja": "キャプチャ用のキット", "en": "The capture kit"},
    "door_how": {"ja": "提供されたキャプチャのマージ方法", "en": "How contributed captures are merged"},
    # [[kb:recorded NAME]]: a trace recorded elsewhere (directives/recorded.py), never this book's capture
    "recorded_title": {"ja": "ほかの場所で記録されたトレース ({gpu})。この本のスニペットではありません",
                       "en": "A trace recorded elsewhere, on an {gpu}: not this book's snippets"},
    "recorded_body": {
        "ja": "下のカーネルは、この本のスニペットが起動したものではありません。{project} プロジェクトが {gpu} で `torch.profiler` を使って記録し、{licence} ライセンスで公開しているトレース {trace} ({copyright}) から、この本のキャプチャと同じコード (`kernelbook kernels`) で読み取ったものです。GPU が実際に起動したカーネルの名前、起動回数、時間です。",
        "en": "The kernels below were not launched by this book's snippets. They come from the trace {trace}, which the {project} project recorded with `torch.profiler` on an {gpu} and publishes under the {licence} licence ({copyright}), read by the same code as this book's captures (`kernelbook kernels`): the names, launch counts and times of kernels a GPU really ran.",
    },
    "recorded_caption": {"ja": "起動されたカーネル ({gpu}、ほかの場所で記録)", "en": "Kernels launched ({gpu}, recorded elsewhere)"},
    # objectives, at the top of a chapter: a label, not a heading
    "objectives": {"ja": "この章の目標", "en": "In this chapter you will"},
    # exercises: [[kb:predict ...]]
    "question": {"ja": "問 {n}", "en": "Question {n}"},
    "answer": {"ja": "答え", "en": "Answer"},
    "answer_value": {"ja": "実行して得た値: {value}", "en": "The run's answer: {value}"},
    "answer_session": {"ja": " (プロファイラのセッション {i} / {n})", "en": " (profiler session {i} of {n})"},
    "answer_predicted": {"ja": "想定している答え: {value}", "en": "The expected answer: {value}"},
    "answer_waits": {
        "ja": "この問いの答えは {device} でしか確かめられません。その実行のキャプチャがまだないため、ここに示しているのは測った値ではなく、本文が想定している答えです。",
        "en": "Only a run on {device} can answer this question, and there is no capture of one yet, so what is shown here is the answer the text expects, not a measured value.",
    },
    "device_gpu": {"ja": "GPU", "en": "a GPU"},
    "device_cpu": {"ja": "CPU", "en": "a CPU"},
    # the instructors' page: every device-scoped claim and question, and whether it is checked now
    "dc_where": {"ja": "場所", "en": "Where"},
    "dc_claim": {"ja": "主張 / 問い", "en": "Claim or question"},
    "dc_status": {"ja": "いまの状態", "en": "State"},
    "dc_prediction": {"ja": "予想", "en": "Prediction"},
    "dc_no_prediction": {"ja": "(比較なし: 予想を示せない)", "en": "(no comparison: nothing predicted)"},
    "dc_predicted": {"ja": "予想のみ: {device} の新しいキャプチャがなく未計測", "en": "predicted: not yet measured (no fresh {device} capture)"},
    "dc_measured": {"ja": "{device} で計測: {value} (torch {torch}, {date})", "en": "measured on {device}: {value} (torch {torch}, {date})"},
    "dc_failed": {"ja": "{device} で不成立: {why}", "en": "failed on {device}: {why}"},
    "kit_none": {"ja": "この本にはリポジトリが設定されていないため、キャプチャ用のキットへのリンクはありません (kernelbook プラグインのオプション `repository`)。",
                 "en": "This book names no repository (the kernelbook plugin's `repository` option), so there is no link to its capture kit."},
    "dc_checked": {"ja": "確認済み: {device}, torch {torch}, {date}", "en": "checked: {device}, torch {torch}, {date}"},
    "dc_unchecked": {"ja": "未確認: {device} の新しいキャプチャがない", "en": "unchecked: no fresh {device} capture"},
    "dc_summary": {
        "ja": "デバイスを限定した主張と問いは {n} 件で、そのうちいま確認できているのは {checked} 件です。",
        "en": "{checked} of the {n} device-scoped claims and questions are checked now.",
    },
    "dc_none": {"ja": "デバイスを指定した主張や問いはありません。", "en": "No claim or question is scoped to one device."},
}


def label(key: str, lang: str, **fields: object) -> str:
    text = LABELS[key][lang]
    return text.format(**fields) if fields else text
