"""GPT Responses model client via the native Azure OpenAI lane.

`model` is an Azure *deployment* name; /etc/jarvis/azure.yaml maps deployments
to the base models they were created from.
"""
import os

from openai import AzureOpenAI

client = AzureOpenAI(
    azure_endpoint="https://jarvis-prod.openai.azure.com",
    api_version="2025-04-01-preview",
    api_key=os.environ.get("AZURE_OPENAI_API_KEY"),
)


def respond(input_items, tools=None, previous_response_id=None):
    # Encrypted reasoning is requested so it can be replayed on the next turn (store=False).
    return client.responses.create(
        model="muse-special",
        input=input_items,
        tools=tools or [],
        previous_response_id=previous_response_id,
        reasoning={"effort": "medium", "summary": "auto"},
        include=["reasoning.encrypted_content"],
        store=False,
    )
