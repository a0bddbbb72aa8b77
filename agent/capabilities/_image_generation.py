"""`ImageGeneration`: images by the provider where the model supports it, by a fallback model otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent._content import ToolReturn
from agent._parts import FilePart, ModelRequest, UserPromptPart
from agent._run_context import RunContext
from agent._tool import AgentDepsT, Tool
from agent.builtin_tools import AbstractBuiltinTool, ImageAspectRatio, ImageGenerationTool
from agent.exceptions import ModelRetry

from ._builtin_or_local import BuiltinOrLocalTool, LocalTool

if TYPE_CHECKING:
    from agent.models import Model

__all__ = ('ImageGeneration',)

_INSTRUCTIONS = 'Generate the image the user describes, using your image generation tool. Add a one-line caption.'


@dataclass(kw_only=True)
class ImageGeneration(BuiltinOrLocalTool[AgentDepsT]):
    """Lets the model generate images: the native `ImageGenerationTool` if supported, else `generate_image`.

    ```python
    ImageGeneration(fallback_model='openai-responses:gpt-5.4')
    ```

    The local `generate_image` tool is a sub-agent step: it asks `fallback_model` (which must support
    native image generation) for the image, with the same image options, and returns the image to the model
    alongside a short text result. Its usage counts towards the run's. Without `fallback_model` there is
    no local side, so a model lacking native image generation gets a `UserError`.
    """

    fallback_model: Model | str | None = None
    """The model asked for images when the agent's model cannot generate them itself."""
    background: Literal['transparent', 'opaque', 'auto'] = 'auto'
    """The image's background."""
    input_fidelity: Literal['high', 'low'] | None = None
    """How closely an edited image keeps the style and features of the input images."""
    moderation: Literal['auto', 'low'] = 'auto'
    """How strictly the provider moderates the generated image."""
    output_compression: int | None = None
    """Compression level (0-100) for JPEG and WebP output."""
    output_format: Literal['png', 'webp', 'jpeg'] | None = None
    """The image's file format."""
    partial_images: int = 0
    """How many partial images to stream while generating."""
    quality: Literal['low', 'medium', 'high', 'auto'] = 'auto'
    """The image's quality."""
    size: Literal['auto', '1024x1024', '1024x1536', '1536x1024'] | None = None
    """The image's size in pixels."""
    aspect_ratio: ImageAspectRatio | None = None
    """The image's aspect ratio, for providers that take one instead of a size."""

    def default_builtin(self) -> AbstractBuiltinTool | None:
        return ImageGenerationTool(
            background=self.background,
            input_fidelity=self.input_fidelity,
            moderation=self.moderation,
            output_compression=self.output_compression,
            output_format=self.output_format,
            partial_images=self.partial_images,
            quality=self.quality,
            size=self.size,
            aspect_ratio=self.aspect_ratio,
        )

    def local_unavailable_reason(self) -> str:
        return 'pass fallback_model=<a model with native image generation> to generate images with it'

    def default_local(self) -> LocalTool | None:
        if self.fallback_model is None:
            return None
        fallback = self.fallback_model
        native = self.default_builtin()
        resolved: list[Model] = []

        async def generate_image(ctx: RunContext[Any], prompt: str) -> ToolReturn:
            """Generate an image from a description; the image is shown to you after this result.

            Args:
                prompt: A detailed description of the image to generate.
            """
            from agent.models import ModelRequestParameters, infer_model

            if not resolved:
                resolved.append(infer_model(fallback))
            model = resolved[0]
            request = ModelRequest(parts=[UserPromptPart(prompt)], instructions=_INSTRUCTIONS)
            params = ModelRequestParameters(native_tools=[native], allow_image_output=True)
            response = await model.request([request], None, params)
            ctx.usage.requests += 1
            ctx.usage.incr(response.usage)
            images = [part.content for part in response.parts if isinstance(part, FilePart) and part.content.is_image]
            if not images:
                said = f' (it said: {response.text})' if response.text else ''
                raise ModelRetry(f'{model.label} did not return an image{said}; try a different description.')
            caption = (response.text or '').strip()
            summary = f'Generated {len(images)} image{"s" if len(images) > 1 else ""}' + (
                f': {caption}' if caption else '.'
            )
            return ToolReturn(summary, content=list(images))

        return Tool[Any](generate_image)

    @classmethod
    def from_spec(
        cls,
        *,
        fallback_model: str | None = None,
        background: Literal['transparent', 'opaque', 'auto'] = 'auto',
        input_fidelity: Literal['high', 'low'] | None = None,
        moderation: Literal['auto', 'low'] = 'auto',
        output_compression: int | None = None,
        output_format: Literal['png', 'webp', 'jpeg'] | None = None,
        partial_images: int = 0,
        quality: Literal['low', 'medium', 'high', 'auto'] = 'auto',
        size: Literal['auto', '1024x1024', '1024x1536', '1536x1024'] | None = None,
        aspect_ratio: ImageAspectRatio | None = None,
        builtin: bool = True,
        native: bool | None = None,
        local: bool | None = None,
        id: str | None = None,
        description: str | None = None,
        defer_loading: bool = False,
    ) -> ImageGeneration[Any]:
        """Build from a spec entry (the fields, with `builtin` (or `native`) and `local` as booleans)."""
        return cls(
            fallback_model=fallback_model,
            background=background,
            input_fidelity=input_fidelity,
            moderation=moderation,
            output_compression=output_compression,
            output_format=output_format,
            partial_images=partial_images,
            quality=quality,
            size=size,
            aspect_ratio=aspect_ratio,
            builtin=builtin,
            native=native,
            id=id,
            description=description,
            defer_loading=defer_loading,
            local=local,
        )
