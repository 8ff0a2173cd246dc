from google import genai
from google.genai import types

client = genai.Client(vertexai=True)

response = client.models.generate_content(
    model='gemini-3.8-flash',
    contents=types.Part.from_text(text='Why is the sky blue?')
)

# Synchronous Example
from mistralai.client import Mistral
import os


with Mistral(
    api_key=os.getenv("MISTRAL_API_KEY", ""),
) as mistral:

    res = mistral.chat.complete(model="mistral-large-latest", messages=[
        {
            "role": "user",
            "content": "Who is the best French painter? Answer in one short sentence.",
        },
    ], stream=False, response_format={
        "type": "text",
    })

    # Handle response
    print(res)
