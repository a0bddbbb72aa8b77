"""`Embedder` with `TestEmbeddingModel`: input types, settings layering, indexing results, sync forms, overrides."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from collections.abc import Sequence

import pytest

import agent
from agent import Embedder, EmbeddingModel, EmbeddingResult, EmbeddingSettings
from agent.embeddings import TestEmbeddingModel, WrapperEmbeddingModel, infer_embedding_model
from agent.embeddings.openai import OpenAIEmbeddingModel
from agent.embeddings.result import EmbedInputType
from agent.exceptions import UserError
from agent.usage import RequestUsage


async def test_embed_query_returns_one_vector_of_ones_per_input_marked_as_query():
    embedder = Embedder(TestEmbeddingModel())

    result = await embedder.embed_query(['What is AI?', 'Who wrote Dune?'])

    assert result.embeddings == [[1.0] * 8, [1.0] * 8]
    assert result.inputs == ['What is AI?', 'Who wrote Dune?']
    assert result.input_type == 'query'
    assert (result.model_name, result.provider_name) == ('test', 'test')
    assert result.usage == RequestUsage(input_tokens=6)
    assert result.provider_response_id is not None


async def test_a_single_document_is_embedded_as_a_list_of_one_document():
    embedder = Embedder(TestEmbeddingModel('my-model', provider_name='acme', dimensions=3))

    result = await embedder.embed_documents('Paris is the capital of France.')

    assert result.inputs == ['Paris is the capital of France.']
    assert result.embeddings == [[1.0, 1.0, 1.0]]
    assert result.input_type == 'document'
    assert (result.model_name, result.provider_name) == ('my-model', 'acme')


def test_a_result_is_indexed_by_position_or_by_input_text():
    result = EmbeddingResult(
        [[0.1, 0.2], [0.3, 0.4]], inputs=['a', 'b'], input_type='document', model_name='m', provider_name='p'
    )

    assert result[1] == [0.3, 0.4]
    assert result['a'] == [0.1, 0.2]
    with pytest.raises(ValueError, match='not in list'):
        result['c']
    with pytest.raises(IndexError):
        result[2]


async def test_call_settings_override_embedder_settings_which_override_model_settings():
    model = TestEmbeddingModel(settings={'dimensions': 2, 'truncate': True, 'extra_headers': {'x-model': '1'}})
    embedder = Embedder(model, settings={'dimensions': 4, 'extra_body': {'user': 'u1'}})

    result = await embedder.embed_query('hi', settings={'dimensions': 6})

    assert result.embeddings == [[1.0] * 6]
    assert model.last_settings == {
        'dimensions': 6,
        'truncate': True,
        'extra_headers': {'x-model': '1'},
        'extra_body': {'user': 'u1'},
    }


async def test_embed_passes_the_given_input_type_to_the_model():
    embedder = Embedder(TestEmbeddingModel())

    result = await embedder.embed(['x'], input_type='document')

    assert result.input_type == 'document'


def test_sync_forms_return_the_same_results_outside_an_event_loop():
    embedder = Embedder(TestEmbeddingModel(), settings={'dimensions': 2})

    assert embedder.embed_query_sync('q').input_type == 'query'
    assert embedder.embed_documents_sync(['d1', 'd2']).embeddings == [[1.0, 1.0], [1.0, 1.0]]
    assert embedder.embed_sync('x', input_type='document').inputs == ['x']
    assert embedder.max_input_tokens_sync() == 1024
    assert embedder.count_tokens_sync('one two, three') == 3


async def test_sync_forms_refuse_to_run_inside_an_event_loop():
    embedder = Embedder(TestEmbeddingModel())

    with pytest.raises(UserError, match='running event loop'):
        embedder.embed_query_sync('q')


async def test_token_limits_and_counts_come_from_the_model():
    embedder = Embedder(TestEmbeddingModel())

    assert await embedder.max_input_tokens() == 1024
    assert await embedder.count_tokens('Hello, world: again') == 3


async def test_override_swaps_the_model_only_inside_the_block():
    real = TestEmbeddingModel('real')
    fake = TestEmbeddingModel('fake')
    embedder = Embedder(real)

    with embedder.override(model=fake):
        inside = await embedder.embed_query('q')
    outside = await embedder.embed_query('q')

    assert (inside.model_name, outside.model_name) == ('fake', 'real')
    assert fake.last_settings == {}


async def test_override_does_not_leak_into_tasks_started_outside_the_block():
    embedder = Embedder(TestEmbeddingModel('real'))
    entered = asyncio.Event()
    release = asyncio.Event()

    async def overridden() -> str:
        with embedder.override(model=TestEmbeddingModel('fake')):
            entered.set()
            await release.wait()
            return (await embedder.embed_query('q')).model_name

    task = asyncio.create_task(overridden())
    await asyncio.wait_for(entered.wait(), 5)
    concurrent = (await embedder.embed_query('q')).model_name
    release.set()

    assert (concurrent, await asyncio.wait_for(task, 5)) == ('real', 'fake')


async def test_override_replaces_a_model_name_whose_key_is_not_set(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    embedder = Embedder('openai:text-embedding-3-small')

    with embedder.override(model=TestEmbeddingModel()):
        result = await embedder.embed_query('q')

    assert result.model_name == 'test'
    assert embedder.model == 'openai:text-embedding-3-small'


async def test_a_missing_api_key_fails_on_first_use_naming_the_variable(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    embedder = Embedder('openai:text-embedding-3-small')

    with pytest.raises(UserError, match='OPENAI_API_KEY'):
        await embedder.embed_query('q')


def test_a_missing_api_key_fails_at_construction_without_deferring(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv('OPENAI_API_KEY', raising=False)
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)

    with pytest.raises(UserError, match='OPENAI_API_KEY'):
        Embedder('openai:text-embedding-3-small', defer_model_check=False)


def test_an_openai_name_resolves_to_the_openai_embedding_model(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('OPENAI_API_KEY', 'sk-env')
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)

    embedder = Embedder('openai:text-embedding-3-small', defer_model_check=False)

    model = embedder.model
    assert isinstance(model, OpenAIEmbeddingModel)
    assert (model.model_name, model.system, model.base_url) == (
        'text-embedding-3-small',
        'openai',
        'https://api.openai.com/v1',
    )


@pytest.mark.parametrize(
    ('name', 'message'),
    [
        ('text-embedding-3-small', 'provider>:<model'),
        ('cohere:embed-v4.0', "Unknown embedding model provider 'cohere'"),
    ],
)
def test_an_unusable_model_name_is_a_user_error(name: str, message: str):
    with pytest.raises(UserError, match=re.escape(message)):
        infer_embedding_model(name)


def test_infer_embedding_model_builds_the_provider_with_the_given_factory():
    from agent.providers.openai import OpenAIProvider

    model = infer_embedding_model(
        'openai:nomic-embed-text',
        provider_factory=lambda name: OpenAIProvider(base_url='http://localhost:11434/v1', name=f'{name}-local'),
    )

    assert isinstance(model, OpenAIEmbeddingModel)
    assert (model.system, model.base_url) == ('openai-local', 'http://localhost:11434/v1')


class _Doubling(WrapperEmbeddingModel):
    """Doubles every vector component of the wrapped model."""

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        result = await super().embed(inputs, input_type=input_type, settings=settings)
        result.embeddings = [[2 * x for x in vector] for vector in result.embeddings]
        return result


async def test_a_wrapper_model_delegates_to_the_wrapped_model_and_can_change_results():
    inner = TestEmbeddingModel('inner', provider_name='acme', dimensions=2, settings={'truncate': True})
    model = _Doubling(inner)

    result = await Embedder(model).embed_documents('d')

    assert result.embeddings == [[2.0, 2.0]]
    assert (model.model_name, model.system, model.settings) == ('inner', 'acme', {'truncate': True})
    assert await model.max_input_tokens() == 1024
    assert await model.count_tokens('a b') == 2


class _Constant(EmbeddingModel):
    """A custom model with only the required members."""

    @property
    def model_name(self) -> str:
        return 'constant'

    @property
    def system(self) -> str:
        return 'custom'

    async def embed(
        self, inputs: str | Sequence[str], *, input_type: EmbedInputType, settings: EmbeddingSettings | None = None
    ) -> EmbeddingResult:
        texts, _ = self.prepare_embed(inputs, settings)
        return EmbeddingResult(
            [[0.5] for _ in texts], inputs=texts, input_type=input_type, model_name='constant', provider_name='custom'
        )


async def test_a_custom_model_knows_no_token_limit_and_cannot_count_tokens():
    embedder = Embedder(_Constant())

    assert (await embedder.embed_query('q'))['q'] == [0.5]
    assert await embedder.max_input_tokens() is None
    with pytest.raises(NotImplementedError):
        await embedder.count_tokens('q')


def test_the_embedding_names_are_importable_from_the_root():
    assert (agent.Embedder, agent.EmbeddingModel, agent.EmbeddingResult, agent.EmbeddingSettings) == (
        Embedder,
        EmbeddingModel,
        EmbeddingResult,
        EmbeddingSettings,
    )


_PYTHON_BLOCK = re.compile(r'```python\n(.*?)```', re.S)


@pytest.mark.parametrize(
    'module_name', ['agent.embeddings._embedder', 'agent.embeddings.test', 'agent.embeddings.openai']
)
def test_the_docstring_examples_run(module_name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv('OPENAI_API_KEY', 'key-from-env')
    monkeypatch.delenv('OPENAI_BASE_URL', raising=False)
    [source] = _PYTHON_BLOCK.findall(inspect.getsource(importlib.import_module(module_name)))

    exec(compile(inspect.cleandoc(source), '<docstring>', 'exec'), {})
