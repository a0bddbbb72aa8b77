"""The HTML to Markdown converter the local `WebFetch` tool uses."""

from __future__ import annotations

from agent.capabilities._html_markdown import html_to_markdown


def test_structure_links_and_emphasis_survive_and_scripts_do_not() -> None:
    html = """<html><head><title>Guide</title><style>p {color: red}</style></head><body>
    <script>steal()</script>
    <p>Read the <a href="/docs/intro">intro</a> and <strong>then</strong> <em>practice</em>.<br>Next line &amp; more.
    </p>
    <h2>Steps</h2>
    <ol><li>Install</li><li>Run <code>worker.py</code></li></ol>
    <ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
    <blockquote><p>Quoted</p><p>twice</p></blockquote>
    <pre><code>def f():
    return 1
</code></pre>
    <table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr></table>
    <img src="pic.png" alt="A picture"><hr><p>End</p>
    </body></html>"""
    assert html_to_markdown(html, base_url='https://example.com/guide/') == (
        '# Guide\n\n'
        'Read the [intro](https://example.com/docs/intro) and **then** *practice*.\nNext line & more.\n\n'
        '## Steps\n\n'
        '1. Install\n2. Run `worker.py`\n\n'
        '- one\n  - nested\n- two\n\n'
        '> Quoted\n>\n> twice\n\n'
        '```\ndef f():\n    return 1\n```\n\n'
        '| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n\n'
        '![A picture](https://example.com/guide/pic.png)\n\n---\n\nEnd'
    )


def test_unclosed_and_stray_tags_do_not_lose_text() -> None:
    assert html_to_markdown('<p>Bold <b>start</p><p>after</i> text</p>') == 'Bold **start**\n\nafter text'


def test_javascript_links_keep_only_their_text() -> None:
    assert html_to_markdown('<a href="javascript:alert(1)">click</a>') == 'click'
